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
  EXPECT_EQ(v.special_ids(),
            "pad=0 unk=1 bos=2 eos=3");  // realmt-data vocab's models map to themselves
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
  o.inputs = {test::write_file(dir.file("en"), c.src_text()),
              test::write_file(dir.file("fr"), c.tgt_text())};
  o.output = dir.file("other.spm");
  o.vocab_size = 64;
  train_vocab(o);
  const Vocab other(o.output);
  ASSERT_EQ(other.size(), v.size());
  EXPECT_NE(other.fingerprint(), v.fingerprint());
}

// Trains a SentencePiece model with `flags` on a small corpus; returns its path.
std::string train_spm(const test::TempDir& dir, const std::string& name, const std::string& flags) {
  const test::Corpus c = test::make_corpus(500, 8);
  const auto input = test::write_file(dir.file("in.txt"), c.src_text());
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + input + " --model_prefix=" + dir.file(name) +
      " --vocab_size=40 --minloglevel=2 " + flags);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return dir.file(name + ".model");
}

void expect_round_trip(const Vocab& v) {
  const std::string text = "the cat sleeps under green trees";
  const auto ids = v.encode(text);
  ASSERT_FALSE(ids.empty());
  for (int32_t id : ids) {
    EXPECT_TRUE(id == kUnkId || id > kEosId) << id;  // text never encodes to pad, bos or eos
    EXPECT_LT(id, v.size());
    EXPECT_EQ(v.id_of(v.piece(id)), id);
  }
  std::vector<int32_t> framed = {kBosId};
  framed.insert(framed.end(), ids.begin(), ids.end());
  framed.push_back(kEosId);
  framed.push_back(ids[0]);
  EXPECT_EQ(v.decode(framed), v.decode(ids));
  EXPECT_EQ(v.decode(ids), text);
}

TEST(Vocab, SpmTrainDefaultsAreMappedAndPadIsAdded) {
  test::TempDir dir;
  // spm_train's defaults: unk=0 bos=1 eos=2, no pad.
  const Vocab v(train_spm(dir, "default", ""));
  EXPECT_EQ(v.special_ids(), "pad=added unk=0 bos=1 eos=2");
  EXPECT_EQ(v.size(), 41);  // 40 pieces and the added pad
  EXPECT_EQ(v.piece(kPadId), "<pad>");
  EXPECT_EQ(v.piece(kUnkId), "<unk>");
  EXPECT_EQ(v.piece(kBosId), "<s>");
  EXPECT_EQ(v.piece(kEosId), "</s>");
  EXPECT_EQ(v.id_of("<pad>"), kPadId);
  EXPECT_EQ(v.id_of("</s>"), kEosId);
  EXPECT_EQ(v.id_of("no-such-piece-here"), kUnkId);
  expect_round_trip(v);
}

TEST(Vocab, MarianStyleModelsGetPadAndBos) {
  test::TempDir dir;
  // What Marian's own vocabulary training writes: eos=0 unk=1, no bos, no pad.
  const Vocab v(train_spm(dir, "marian", "--bos_id=-1 --eos_id=0 --unk_id=1"));
  EXPECT_EQ(v.special_ids(), "pad=added unk=1 bos=added eos=0");
  EXPECT_EQ(v.size(), 42);
  EXPECT_EQ(v.piece(kEosId), "</s>");
  EXPECT_EQ(v.piece(kBosId), "<s>");
  expect_round_trip(v);
}

TEST(Vocab, PadElsewhereIsMappedToo) {
  test::TempDir dir;
  const Vocab v(train_spm(dir, "padded", "--pad_id=3 --unk_id=0 --bos_id=1 --eos_id=2"));
  EXPECT_EQ(v.special_ids(), "pad=3 unk=0 bos=1 eos=2");
  EXPECT_EQ(v.size(), 40);
  expect_round_trip(v);
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
  // A Marian .yml vocabulary is read as a word list (vocab_word_list_test.cc); one that is not a
  // {piece: id} map is named.
  const std::string yml = test::write_file(dir.file("vocab.en.yml"), "- the\n- cat\n");
  try {
    Vocab v(yml);
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("vocab.en.yml"), std::string::npos) << what;
    EXPECT_NE(what.find("map of piece: id"), std::string::npos) << what;
  }
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
