// A converted model's vocabulary (data::Vocab::from_tables): pieces from the SentencePiece models,
// ids from the model's tables (Marian / Hugging Face conventions: eos 0, unk 1, pad last).
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>

#include <algorithm>

#include "core/error.h"
#include "data/vocab.h"
#include "test_util.h"

namespace realmt::data {
namespace {

// The test vocabulary's pieces as a Marian table: </s>, <unk>, the other pieces in reverse order
// (the ids differ from the .spm's everywhere), <pad> last.
std::vector<std::string> marian_table(const Vocab& spm, const std::string& skip = "") {
  std::vector<std::string> t{"</s>", "<unk>"};
  for (int32_t id = spm.size() - 1; id > kEosId; --id)
    if (spm.piece(id) != skip) t.push_back(spm.piece(id));
  t.push_back("<pad>");
  return t;
}

TEST(VocabTables, IdsComeFromTheTableAndTextRoundTrips) {
  const std::string path = test::test_vocab();
  const Vocab spm(path);
  const std::vector<std::string> table = marian_table(spm);
  const int32_t pad = static_cast<int32_t>(table.size()) - 1;
  const Vocab v = Vocab::from_tables(path, path, table, {}, {pad, 1, 0, pad});
  EXPECT_TRUE(v.has_tables());
  EXPECT_EQ(v.size(), static_cast<int32_t>(table.size()));
  EXPECT_EQ(v.special_ids(),
            "pad=" + std::to_string(pad) + " unk=1 eos=0 decoder-start=" + std::to_string(pad));
  const std::string text = "the cat sleeps under green trees";
  const std::vector<int32_t> ids = v.encode(text);
  const std::vector<std::string> pieces = spm.encode_pieces(text);
  ASSERT_EQ(ids.size(), pieces.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(table[static_cast<size_t>(ids[i])], pieces[i]);  // the table's id of each piece
    EXPECT_EQ(v.piece(ids[i]), pieces[i]);
  }
  EXPECT_EQ(v.encode_target(text), ids);
  EXPECT_EQ(v.decode(ids), text);
  // The decoder start (pad) is skipped, decoding stops at eos 0.
  std::vector<int32_t> framed{pad};
  framed.insert(framed.end(), ids.begin(), ids.end());
  framed.insert(framed.end(), {0, ids[0]});
  EXPECT_EQ(v.decode(framed), text);
  EXPECT_THROW(v.decode({v.size()}), Error);
}

TEST(VocabTables, APieceTheTableLacksIsUnk) {
  const std::string path = test::test_vocab();
  const Vocab spm(path);
  const std::string text = "the cat sleeps";
  const std::string missing = spm.encode_pieces(text)[0];
  const std::vector<std::string> table = marian_table(spm, missing);
  const int32_t pad = static_cast<int32_t>(table.size()) - 1;
  const Vocab v = Vocab::from_tables(path, path, table, {}, {pad, 1, 0, pad});
  EXPECT_EQ(v.encode(text)[0], 1);
  EXPECT_EQ(v.id_of(missing), 1);
}

TEST(VocabTables, SeparateTablesServeTheirSides) {
  const std::string path = test::test_vocab();
  const Vocab spm(path);
  std::vector<std::string> source = marian_table(spm), target = source;
  std::swap(target[5], target[6]);  // the target side numbers two pieces the other way
  target.insert(target.end() - 1, "extra");
  const int32_t pad_s = static_cast<int32_t>(source.size()) - 1,
                pad_t = static_cast<int32_t>(target.size()) - 1;
  EXPECT_THROW(Vocab::from_tables(path, path, source, target, {pad_t, 1, 0, pad_t}),
               Error);  // pad outside source
  std::vector<std::string> source2 = source;
  source2.insert(source2.end() - 1, "extra2");  // equal sizes: one pad id for both sides
  const Vocab v = Vocab::from_tables(path, path, source2, target, {pad_t, 1, 0, pad_t});
  EXPECT_EQ(v.target_size(), pad_t + 1);
  const std::string text = "the cat sleeps under green trees";
  const auto src_ids = v.encode(text), tgt_ids = v.encode_target(text);
  ASSERT_EQ(src_ids.size(), tgt_ids.size());
  for (size_t i = 0; i < src_ids.size(); ++i) {
    EXPECT_EQ(source2[static_cast<size_t>(src_ids[i])], target[static_cast<size_t>(tgt_ids[i])]);
    EXPECT_EQ(v.piece(tgt_ids[i]),
              target[static_cast<size_t>(tgt_ids[i])]);  // piece(): the target side
  }
  EXPECT_EQ(v.decode(tgt_ids), text);
  (void)pad_s;
}

TEST(VocabTables, FingerprintFollowsTheTables) {
  const std::string path = test::test_vocab();
  const Vocab spm(path);
  std::vector<std::string> table = marian_table(spm);
  const int32_t pad = static_cast<int32_t>(table.size()) - 1;
  const std::string a = Vocab::from_tables(path, path, table, {}, {pad, 1, 0, pad}).fingerprint();
  EXPECT_EQ(a.rfind("table-fnv1a64:" + std::to_string(table.size()) + ":", 0), 0u) << a;
  std::swap(table[4], table[5]);
  EXPECT_NE(Vocab::from_tables(path, path, table, {}, {pad, 1, 0, pad}).fingerprint(), a);
  EXPECT_NE(spm.fingerprint(), a);
}

TEST(VocabTables, MissingModelIsNamed) {
  EXPECT_THROW(
      {
        try {
          Vocab::from_tables("/nonexistent/source.spm", "/nonexistent/source.spm",
                             {"</s>", "<unk>", "<pad>"}, {}, {2, 1, 0, 2});
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("/nonexistent/source.spm"), std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
}

}  // namespace
}  // namespace realmt::data
