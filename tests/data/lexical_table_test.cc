// realmt-data shortlist's table (data/lexical_table.h): IBM model 1 on a word-for-word corpus
// finds every word's translation, the top/min-prob cuts, and the two file formats.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "core/error.h"
#include "data/lexical_table.h"
#include "data/marian_vocab.h"
#include "data/vocab.h"
#include "test_util.h"

namespace realmt::data {
namespace {

using test::Corpus;
using test::TempDir;

struct Fixture {
  TempDir dir;
  Corpus corpus = test::make_corpus(600, 6);
  std::string src = test::write_file(dir.file("c.en"), corpus.src_text());
  std::string tgt = test::write_file(dir.file("c.fr"), corpus.tgt_text());
  // A joint word list of both sides: pieces are the words.
  Vocab vocab{test::write_file(dir.file("v.yml"), word_list_yaml({src, tgt}, 0))};
  std::vector<int32_t> specials() const {
    const TableSpecialIds ids = vocab.ids();
    return {ids.pad, ids.unk, ids.eos, ids.decoder_start};
  }
};

// The English word at position k of each pair translates to the French word at k.
std::map<std::string, std::string> dictionary(const Corpus& c) {
  std::map<std::string, std::string> d;
  for (size_t i = 0; i < c.src.size(); ++i) {
    std::istringstream s(c.src[i]), t(c.tgt[i]);
    std::string a, b;
    while (s >> a && t >> b) d[a] = b;
  }
  return d;
}

TEST(LexicalTable, Ibm1FindsEveryWordsTranslation) {
  Fixture f;
  const EncodedCorpus c = encode_corpus(f.src, f.tgt, f.vocab, 2);
  ASSERT_EQ(c.sources.size(), f.corpus.src.size());
  LexicalTableOptions o;
  o.top = 3;
  o.min_prob = 0.0;
  const std::vector<LexEntry> entries = train_ibm1(c, o, f.specials());
  const auto dict = dictionary(f.corpus);
  ASSERT_EQ(dict.size(), 24u);
  for (const auto& [en, fr] : dict) {
    const int32_t x = f.vocab.id_of(en);
    const LexEntry* best = nullptr;
    int64_t kept = 0;
    for (const LexEntry& e : entries) {
      if (e.source != x) continue;
      if (!best) best = &e;  // the first entry of a source is its most probable
      ++kept;
    }
    ASSERT_NE(best, nullptr) << en;
    EXPECT_EQ(f.vocab.piece(best->target), fr) << en;
    EXPECT_GT(best->prob, 0.8f) << en << " -> " << fr;
    EXPECT_EQ(kept, 3) << en;
  }
}

TEST(LexicalTable, EmIterationsSharpenTheCoOccurrenceStart) {
  Fixture f;
  const EncodedCorpus c = encode_corpus(f.src, f.tgt, f.vocab, 1);
  LexicalTableOptions o;
  o.top = 1;
  o.min_prob = 0.0;
  o.iterations = 0;
  const auto start = train_ibm1(c, o, f.specials());
  o.iterations = 5;
  const auto trained = train_ibm1(c, o, f.specials());
  ASSERT_EQ(start.size(), trained.size());
  double p0 = 0, p5 = 0;
  for (size_t i = 0; i < start.size(); ++i) p0 += start[i].prob, p5 += trained[i].prob;
  EXPECT_GT(p5, p0 + 0.2 * static_cast<double>(start.size()));  // co-occurrence alone is flat
}

TEST(LexicalTable, MinProbAndSpecialsLeaveEntriesOut) {
  Fixture f;
  const EncodedCorpus c = encode_corpus(f.src, f.tgt, f.vocab, 1);
  LexicalTableOptions o;
  o.top = 0;
  o.min_prob = 0.05;
  const auto entries = train_ibm1(c, o, f.specials());
  ASSERT_FALSE(entries.empty());
  for (const LexEntry& e : entries) {
    EXPECT_GE(e.prob, 0.05f);
    EXPECT_GE(e.source, 4);  // the four special ids come first in a word list's vocabulary
    EXPECT_GE(e.target, 4);
  }
  for (size_t i = 1; i < entries.size(); ++i) {
    const LexEntry &a = entries[i - 1], &b = entries[i];
    EXPECT_TRUE(a.source < b.source || (a.source == b.source && a.prob >= b.prob)) << i;
  }
}

TEST(LexicalTable, WritesMarianLexAndCTranslate2Vmap) {
  Fixture f;
  const int32_t house = f.vocab.id_of("house"), maison = f.vocab.id_of("maison"),
                la = f.vocab.id_of("la");
  const std::vector<LexEntry> entries = {{house, maison, 0.75f}, {house, la, 0.125f}};
  EXPECT_EQ(format_lex_s2t(entries, f.vocab), "maison house 0.75\nla house 0.125\n");
  const std::string vmap = format_vmap(entries, f.vocab, 2, false);
  EXPECT_EQ(vmap, "\t" + f.vocab.piece(0) + " " + f.vocab.piece(1) + "\nhouse\tmaison la\n");
  // A joint vocabulary copies every source piece: its own line lists it first.
  const std::string copied = format_vmap(entries, f.vocab, 0, true);
  EXPECT_NE(copied.find("\nhouse\thouse maison la\n"), std::string::npos) << copied;
  EXPECT_NE(copied.find("\nthe\tthe\n"), std::string::npos) << copied;
  EXPECT_EQ(copied.find("</s>\t"), std::string::npos) << copied;
}

TEST(LexicalTable, IdsOutsideTheVocabularyAreAnError) {
  EncodedCorpus c;
  c.sources = {{5}};
  c.targets = {{9}};
  c.source_vocab = c.target_vocab = 8;
  EXPECT_THROW(train_ibm1(c, {}, {}), Error);
}

}  // namespace
}  // namespace realmt::data
