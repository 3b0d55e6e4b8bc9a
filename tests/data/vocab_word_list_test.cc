// Marian's word-list vocabularies (.yml, .json) for pre-segmented text, and vocabularies a side
// (Vocab::pair).
#include <gtest/gtest.h>

#include "core/error.h"
#include "data/marian_vocab.h"
#include "data/vocab.h"
#include "test_util.h"

namespace realmt::data {
namespace {

// marian-vocab's layout: </s> 0, <unk> 1, then the pieces; YAML quotes the awkward ones.
const char* kYml = "</s>: 0\n<unk>: 1\nthe: 2\nhou@@: 3\nse: 4\n\"a:b\": 5\n\"@@\": 6\n";

TEST(WordListVocab, SplitsPreSegmentedTextOnSpaces) {
  test::TempDir dir;
  const Vocab v(test::write_file(dir.file("v.yml"), kYml));
  // realmt's ids: the roles first (pad and bos added), then the list's other pieces in order.
  EXPECT_EQ(v.size(), 7 + 2);
  EXPECT_EQ(v.special_ids(), "pad=added unk=1 bos=added eos=0");
  EXPECT_EQ(v.piece(kEosId), "</s>");
  EXPECT_EQ(v.piece(kUnkId), "<unk>");
  const std::vector<int32_t> ids = v.encode("the  hou@@ se a:b @@ nope");
  ASSERT_EQ(ids.size(), 6u);  // runs of spaces make no empty token
  EXPECT_EQ(v.piece(ids[0]), "the");
  EXPECT_EQ(v.piece(ids[1]), "hou@@");
  EXPECT_EQ(v.piece(ids[3]), "a:b");
  EXPECT_EQ(ids[5], kUnkId);  // a token the list lacks
  EXPECT_EQ(v.encode_pieces("the  hou@@ se"), (std::vector<std::string>{"the", "hou@@", "se"}));
  // decode joins the pieces with spaces (no BPE joining: as Marian, the caller's sed does that).
  std::vector<int32_t> framed = {kBosId};
  framed.insert(framed.end(), ids.begin(), ids.begin() + 3);
  framed.push_back(kEosId);
  framed.push_back(ids[0]);
  EXPECT_EQ(v.decode(framed), "the hou@@ se");
  EXPECT_EQ(v.id_of("se"), ids[2]);
  EXPECT_EQ(v.id_of("nope"), kUnkId);
  EXPECT_EQ(v.fingerprint().rfind("words-fnv1a64:9:", 0), 0u) << v.fingerprint();
}

TEST(WordListVocab, JsonReadsAsYamlAndBadListsNameTheFile) {
  test::TempDir dir;
  const Vocab yml(test::write_file(dir.file("v.yml"), kYml));
  const Vocab json(test::write_file(
      dir.file("v.json"),
      R"({"</s>": 0, "<unk>": 1, "the": 2, "hou@@": 3, "se": 4, "a:b": 5, "@@": 6})"));
  EXPECT_EQ(json.fingerprint(), yml.fingerprint());
  const std::string gap = test::write_file(dir.file("gap.yml"), "</s>: 0\n<unk>: 2\n");
  try {
    Vocab{gap};
    ADD_FAILURE() << "a list with a gap in its ids was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gap.yml"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Vocab{dir.file("missing.yml")}, Error);
}

TEST(WordListVocab, CreatedAsMarianDoes) {
  test::TempDir dir;
  const std::string a = test::write_file(dir.file("a.txt"), "b a c\na b\nb <unk>\n");
  const std::string b = test::write_file(dir.file("b.txt"), "d a\n");
  EXPECT_EQ(create_word_list({a, b}, dir.file("all.yml"), 0), 6);
  // </s> and <unk> first, then by falling count (b 3, a 3 in first-seen order), then c, d.
  EXPECT_EQ(read_word_list(dir.file("all.yml")),
            (std::vector<std::string>{"</s>", "<unk>", "b", "a", "c", "d"}));
  EXPECT_EQ(create_word_list({a, b}, dir.file("four.yml"), 4), 4);
  EXPECT_EQ(read_word_list(dir.file("four.yml")),
            (std::vector<std::string>{"</s>", "<unk>", "b", "a"}));
}

TEST(VocabPair, EachSideItsOwnVocabulary) {
  test::TempDir dir;
  const std::string src =
      test::write_file(dir.file("src.yml"), "</s>: 0\n<unk>: 1\ncat: 2\ndog: 3\n");
  const std::string tgt =
      test::write_file(dir.file("tgt.yml"), "</s>: 0\n<unk>: 1\nchien: 2\nchat: 3\nles: 4\n");
  const Vocab v = Vocab::pair(src, tgt);
  ASSERT_TRUE(v.is_pair());
  EXPECT_EQ(v.size(), 6);
  EXPECT_EQ(v.target_size(), 7);
  const std::vector<int32_t> s = v.encode("dog cat");
  const std::vector<int32_t> t = v.encode_target("chat chien les");
  EXPECT_EQ(s, (std::vector<int32_t>{5, 4}));     // src: cat 4, dog 5
  EXPECT_EQ(t, (std::vector<int32_t>{5, 4, 6}));  // tgt: chien 4, chat 5, les 6
  std::vector<int32_t> out;
  v.encode_target("les chat", out);
  EXPECT_EQ(out, (std::vector<int32_t>{6, 5}));
  EXPECT_EQ(v.decode(t), "chat chien les");  // the target side's pieces
  EXPECT_EQ(v.piece(6), "les");
  EXPECT_EQ(v.id_of("cat"), 4);  // the source side's
  // The fingerprint names both sides; the same file twice is a vocabulary, not a pair.
  EXPECT_EQ(v.fingerprint(), Vocab(src).fingerprint() + " " + Vocab(tgt).fingerprint());
  EXPECT_FALSE(Vocab::pair(src, src).is_pair());
  EXPECT_EQ(Vocab::pair(src, src).fingerprint(), Vocab(src).fingerprint());
}

TEST(VocabPair, SentencePieceModelsASide) {
  test::TempDir dir;
  const test::Corpus c = test::make_corpus(500, 8);
  VocabTrainOptions o;
  o.inputs = {test::write_file(dir.file("en"), c.src_text())};
  o.output = dir.file("en.spm");
  o.vocab_size = 28;  // 24 words and the 4 special pieces
  o.model_type = "word";
  train_vocab(o);
  o.inputs = {test::write_file(dir.file("fr"), c.tgt_text())};
  o.output = dir.file("fr.spm");
  train_vocab(o);
  const Vocab v = Vocab::pair(dir.file("en.spm"), dir.file("fr.spm"));
  EXPECT_EQ(v.decode(v.encode_target(c.tgt[3])), c.tgt[3]);
  EXPECT_EQ(Vocab(dir.file("en.spm")).decode(v.encode(c.src[3])), c.src[3]);
}

}  // namespace
}  // namespace realmt::data
