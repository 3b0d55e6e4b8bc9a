#include "data/vocab.h"

#include <gtest/gtest.h>
#include <sentencepiece_trainer.h>

#include "core/error.h"
#include "data/vocab_trainer.h"
#include "test_util.h"

namespace realmt::data {
namespace {

TEST(Vocab, TrainedModelHasTheFixedSpecialIds) {
  Vocab v(test::test_vocab());
  EXPECT_EQ(v.size(), 64);
  EXPECT_EQ(v.piece(kPadId), "<pad>");
  EXPECT_EQ(v.piece(kUnkId), "<unk>");
  EXPECT_EQ(v.piece(kBosId), "<s>");
  EXPECT_EQ(v.piece(kEosId), "</s>");
  EXPECT_EQ(v.id_of("</s>"), kEosId);
}

TEST(Vocab, EncodeDecodeRoundTrip) {
  Vocab v(test::test_vocab());
  const std::string text = "the cat sleeps under green trees";
  const auto ids = v.encode(text);
  ASSERT_FALSE(ids.empty());
  for (int32_t id : ids) {
    EXPECT_GT(id, kEosId);
    EXPECT_LT(id, v.size());
  }
  EXPECT_EQ(v.decode(ids), text);
  // pad and bos are skipped, decoding stops at eos.
  std::vector<int32_t> framed = {kBosId};
  framed.insert(framed.end(), ids.begin(), ids.end());
  framed.push_back(kEosId);
  framed.push_back(ids[0]);
  framed.push_back(kPadId);
  EXPECT_EQ(v.decode(framed), text);
  EXPECT_THROW(v.decode({v.size()}), Error);
}

TEST(Vocab, FingerprintNamesTheContentNotTheFileOrTheSize) {
  test::TempDir dir;
  const Vocab v(test::test_vocab());
  const std::string copy = dir.file("copy.spm");
  std::filesystem::copy_file(test::test_vocab(), copy);
  EXPECT_EQ(Vocab(copy).fingerprint(), v.fingerprint());
  EXPECT_EQ(v.fingerprint().rfind("spm-fnv1a64:64:", 0), 0u) << v.fingerprint();
  // Another vocabulary of the same size (trained on other sentences) has other pieces or scores.
  const test::Corpus c = test::make_corpus(2000, 12, 99);
  VocabTrainOptions o;
  o.inputs = {test::write_file(dir.file("en"), c.src_text()), test::write_file(dir.file("fr"), c.tgt_text())};
  o.output = dir.file("other.spm");
  o.vocab_size = 64;
  train_vocab(o);
  const Vocab other(o.output);
  ASSERT_EQ(other.size(), v.size());
  EXPECT_NE(other.fingerprint(), v.fingerprint());
}

TEST(Vocab, RefusesModelsWithOtherSpecialIds) {
  test::TempDir dir;
  const test::Corpus c = test::make_corpus(500, 8);
  const auto input = test::write_file(dir.file("in.txt"), c.src_text());
  // SentencePiece's defaults: unk=0 bos=1 eos=2, no pad.
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + input + " --model_prefix=" + dir.file("default") +
      " --vocab_size=40 --minloglevel=2");
  ASSERT_TRUE(status.ok()) << status.ToString();
  try {
    Vocab v(dir.file("default.model"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("pad=-1 unk=0 bos=1 eos=2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("realmt-data vocab"), std::string::npos) << msg;
  }
}

TEST(Vocab, MissingOrForeignFilesFailClearly) {
  test::TempDir dir;
  try {
    Vocab v(dir.file("none.spm"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("train one with realmt-data vocab"), std::string::npos);
  }
  EXPECT_THROW(Vocab(test::write_file(dir.file("junk.spm"), "not a model")), Error);
}

TEST(VocabTrainer, UserSymbolsAndReportedCounts) {
  test::TempDir dir;
  const test::Corpus c = test::make_corpus(300, 6);
  VocabTrainOptions o;
  o.inputs = {test::write_file(dir.file("a.txt"), c.src_text() + "\n\n" + c.tgt_text())};
  o.output = dir.file("m.spm");
  o.vocab_size = 60;
  o.user_symbols = {"<sep>"};
  const VocabTrainReport r = train_vocab(o);
  EXPECT_EQ(r.lines_read, 600);
  EXPECT_EQ(r.empty_lines, 2);
  Vocab v(o.output);
  EXPECT_EQ(v.size(), 60);
  EXPECT_EQ(v.id_of("<sep>"), 4);  // user symbols follow the four special ids
  EXPECT_TRUE(std::filesystem::exists(dir.file("m.vocab")));
  o.vocab_size = 4;
  EXPECT_THROW(train_vocab(o), Error);
}

}  // namespace
}  // namespace realmt::data
