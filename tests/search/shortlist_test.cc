// The lexical shortlist (search/shortlist.h): its file and options, a batch's candidate set, and
// decoding with it (BeamSearch over Transformer::output_subset).
#include "search/shortlist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

#include "core/error.h"
#include "data/vocab.h"
#include "search/beam_search.h"
#include "tiny_model.h"

namespace realmt::search {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kVocab = 12;  // pad, unk, <s>, </s>, w0 .. w7 (ids 4 .. 11)

// A joint word-list vocabulary of the words w0 .. w7 (ids 4 .. 11).
class ShortlistTest : public ::testing::Test {
 protected:
  void SetUp() override {
    (void)test::kOneThread;
    dir_ = fs::temp_directory_path() / ("realmt_shortlist_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream yml(dir_ / "vocab.yml");
    yml << "\"</s>\": 0\n\"<unk>\": 1\n";
    for (int w = 0; w < 8; ++w) yml << "w" << w << ": " << w + 2 << "\n";
    yml.close();
    vocab_ = std::make_unique<data::Vocab>((dir_ / "vocab.yml").string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::shared_ptr<const Shortlist> shortlist(const std::string& text, int64_t first, int64_t best,
                                             double threshold = 0) const {
    ShortlistOptions o;
    o.path = "lex.s2t";
    o.first = first;
    o.best = best;
    o.threshold = threshold;
    return Shortlist::parse(text, "lex.s2t", o, *vocab_);
  }

  fs::path dir_;
  std::unique_ptr<data::Vocab> vocab_;
};

TEST(ShortlistOptions, ParsesMariansListWithItsDefaults) {
  const ShortlistOptions d = ShortlistOptions::parse({"lex.s2t"});
  EXPECT_EQ(d.path, "lex.s2t");
  EXPECT_EQ(d.first, 100);
  EXPECT_EQ(d.best, 100);
  EXPECT_EQ(d.threshold, 0.0);
  const ShortlistOptions o = ShortlistOptions::parse({"lex.s2t", "50", "20", "0.01"});
  EXPECT_EQ(o.first, 50);
  EXPECT_EQ(o.best, 20);
  EXPECT_DOUBLE_EQ(o.threshold, 0.01);
  EXPECT_THROW(ShortlistOptions::parse({}), UsageError);
  EXPECT_THROW(ShortlistOptions::parse({"lex.s2t", "x"}), UsageError);
  EXPECT_THROW(ShortlistOptions::parse({"lex.s2t", "10", "-1"}), UsageError);
  EXPECT_THROW(ShortlistOptions::parse({"lex.s2t", "10", "10", "2"}), UsageError);
  EXPECT_THROW(ShortlistOptions::parse({"lex.s2t", "1", "2", "0", "extra"}), UsageError);
}

TEST_F(ShortlistTest, CandidatesAreFirstEosUnkTheSourcesBestTargetsAndTheSourcesThemselves) {
  // w0 -> w5 (0.5), w6 (0.25), w7 (0.125); w1 -> w7 (0.9). Target first, as Marian's lex.s2t.
  const std::string lex =
      "w5 w0 0.5\nw6 w0 0.25\nw7 w0 0.125\nw7 w1 0.9\nNULL w0 0.3\nw4 NULL 0.2\n";
  EXPECT_EQ(shortlist(lex, 0, 1)->candidates({{4}}), (std::vector<int32_t>{1, 3, 4, 9}));
  EXPECT_EQ(shortlist(lex, 0, 2)->candidates({{4}}), (std::vector<int32_t>{1, 3, 4, 9, 10}));
  EXPECT_EQ(shortlist(lex, 0, 100, 0.2)->candidates({{4}}), (std::vector<int32_t>{1, 3, 4, 9, 10}));
  EXPECT_EQ(shortlist(lex, 2, 100, 0.3)->candidates({{4, 4}}),
            (std::vector<int32_t>{0, 1, 3, 4, 9}));
  // A batch: the union over its sentences, each id once, ascending.
  EXPECT_EQ(shortlist(lex, 0, 1)->candidates({{5}, {4, 5}}),
            (std::vector<int32_t>{1, 3, 4, 5, 9, 11}));
  EXPECT_EQ(shortlist(lex, 0, 1)->candidates({{6}}), (std::vector<int32_t>{1, 3, 6}));
  EXPECT_EQ(shortlist(lex, 0, 2)->entries(), 3);  // w0's best two, w1's one
}

TEST_F(ShortlistTest, PiecesTheVocabularyLacksAreSkippedAndCounted) {
  const auto s = shortlist("w5 w0 0.5\nzz w0 0.5\nw5 yy 0.5\n\n", 0, 10);
  EXPECT_EQ(s->unknown_entries(), 2);
  EXPECT_EQ(s->entries(), 1);
  EXPECT_EQ(s->candidates({{4}}), (std::vector<int32_t>{1, 3, 4, 9}));
}

TEST_F(ShortlistTest, AMalformedLineIsAnErrorNamingFileAndLine) {
  for (const std::string bad : {"w5 w0\n", "w5 w0 0.5 7\n", "w5 w0 x\n", "w5 w0 nan\n"}) {
    try {
      shortlist("w5 w0 0.5\n" + bad, 0, 10);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("lex.s2t: line 2"), std::string::npos) << e.what();
    }
  }
  ShortlistOptions o;
  o.path = (dir_ / "missing.s2t").string();
  EXPECT_THROW(Shortlist::load(o, *vocab_), Error);
}

// Every target id: decoding with the shortlist is decoding without it, bit for bit.
std::string every_id(int64_t words) {
  std::string lex;
  for (int x = 0; x < words; ++x)
    for (int y = 0; y < words; ++y)
      lex += "w" + std::to_string(y) + " w" + std::to_string(x) + " 0.1\n";
  return lex;
}

std::vector<std::vector<int32_t>> some_sources() {
  return {{4, 5, 6}, {7}, {8, 9, 10, 11, 4}, {11, 11}, {6, 4, 9, 5}};
}

void expect_same(const std::vector<std::vector<Hypothesis>>& a,
                 const std::vector<std::vector<Hypothesis>>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size()) << i;
    for (size_t j = 0; j < a[i].size(); ++j) {
      EXPECT_EQ(a[i][j].tokens, b[i][j].tokens) << i << " " << j;
      EXPECT_EQ(a[i][j].score, b[i][j].score) << i << " " << j;
      EXPECT_EQ(a[i][j].token_log_probs, b[i][j].token_log_probs) << i << " " << j;
      EXPECT_EQ(a[i][j].model_log_probs, b[i][j].model_log_probs) << i << " " << j;
    }
  }
}

std::unique_ptr<models::Transformer> int8_model(uint64_t seed) {
  auto m = std::make_unique<models::Transformer>(test::tiny_model(seed, kVocab)->config());
  m->allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
  m->init(seed);
  m->quantize();
  return m;
}

TEST_F(ShortlistTest, EveryIdInTheShortlistDecodesAsWithout) {
  auto a = test::tiny_model(11, kVocab), b = test::tiny_model(12, kVocab);
  auto q = int8_model(13), r = int8_model(14);
  // first 3 (pad, unk, <s>) and every word from every word: all 12 ids through the entries.
  const auto all = shortlist(every_id(8), 3, 100);
  ASSERT_EQ(all->candidates(some_sources()).size(), static_cast<size_t>(kVocab));
  SearchOptions o;
  o.beam_size = 3;
  o.n_best = 3;
  o.max_length = 8;
  // f32 (the fused output layer), int8 (the fused layer over the int8 table) and ensembles of
  // both (log-probabilities [N, V], then top-k).
  for (const auto& models : std::vector<std::vector<const models::Transformer*>>{
           {a.get()}, {q.get()}, {a.get(), b.get()}, {q.get(), r.get()}}) {
    const auto without = BeamSearch(models).search(some_sources(), o);
    const auto with = BeamSearch(models, all).search(some_sources(), o);
    expect_same(without, with);
  }
}

TEST_F(ShortlistTest, ATargetOutsideTheShortlistNeverAppears) {
  auto a = test::tiny_model(21, kVocab), b = test::tiny_model(22, kVocab);
  auto q = int8_model(23);
  SearchOptions o;
  o.beam_size = 4;
  o.n_best = 4;
  o.max_length = 6;
  for (const auto& models : std::vector<std::vector<const models::Transformer*>>{
           {a.get()}, {q.get()}, {a.get(), b.get()}}) {
    // The word the model produces most, w; the sources without it whose translations hold it.
    std::vector<std::vector<int32_t>> all;
    for (int32_t x = 4; x < kVocab; ++x)
      for (int32_t y = 4; y < kVocab; ++y) all.push_back({x, y});
    const auto full = BeamSearch(models).search(all, o);
    std::map<int32_t, int> seen;
    for (const auto& hyps : full)
      for (const auto& h : hyps)
        for (int32_t y : h.tokens) ++seen[y];
    int32_t w = 4;
    for (const auto& [y, n] : seen)
      if (n > seen[w]) w = y;
    std::vector<std::vector<int32_t>> sources;
    for (size_t i = 0; i < all.size(); ++i) {
      const bool in_source = std::find(all[i].begin(), all[i].end(), w) != all[i].end();
      bool in_output = false;
      for (const auto& h : full[i])
        in_output |= std::find(h.tokens.begin(), h.tokens.end(), w) != h.tokens.end();
      if (!in_source && in_output) sources.push_back(all[i]);
    }
    ASSERT_FALSE(sources.empty()) << "no source without w" << w - 4
                                  << " translates to it: the test would check nothing";
    // Every word from every word but w (the source pieces themselves are candidates too).
    std::string lex;
    for (int x = 0; x < 8; ++x)
      for (int y = 0; y < 8; ++y)
        if (4 + y != w) lex += "w" + std::to_string(y) + " w" + std::to_string(x) + " 0.5\n";
    const auto restricted = BeamSearch(models, shortlist(lex, 4, 100)).search(sources, o);
    for (const auto& hyps : restricted) {
      ASSERT_FALSE(hyps.empty());
      for (const auto& h : hyps) {
        EXPECT_EQ(std::find(h.tokens.begin(), h.tokens.end(), w), h.tokens.end())
            << "w" << w - 4 << " is not in the shortlist";
        EXPECT_TRUE(std::isfinite(h.score));
      }
    }
  }
}

TEST_F(ShortlistTest, AShortlistOfAnotherVocabularySizeIsRefused) {
  auto m = test::tiny_model(31);  // 7 ids
  EXPECT_THROW(BeamSearch({m.get()}, shortlist("w5 w0 0.5\n", 0, 10)), Error);
}

}  // namespace
}  // namespace realmt::search
