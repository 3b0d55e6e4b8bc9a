// sacreBLEU 2.6.0's numbers for the BLEU and sentence-BLEU conformance vectors.
#include <gtest/gtest.h>

#include "metrics/bleu.h"
#include "metrics_test_util.h"

namespace realmt::metrics {
namespace {

using testing::corpus;
using testing::sentence;

const std::vector<std::string> H = {"The dog bit the man.", "It wasn't surprising.",
                                    "The man had just bitten him."};
const std::vector<std::vector<std::string>> R = {
    {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
    {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};

double bleu(BleuOptions o, const std::vector<std::string>& h = H,
            const std::vector<std::vector<std::string>>& r = R) {
  Bleu m(o);
  return corpus(m, h, r).score;
}

TEST(Bleu, ReadmeExample) {
  Bleu m{BleuOptions{}};
  const Score s = corpus(m, H, R);
  EXPECT_DOUBLE_EQ(s.score, 48.530827009929865);
  EXPECT_EQ(s.verbose, "82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");
  EXPECT_EQ(m.signature().format(false),
            "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0");
  EXPECT_EQ(m.signature().format(true), "#:2|c:mixed|e:no|tok:13a|s:exp|v:2.6.0");
}

TEST(Bleu, TokenizersSmoothingAndOrders) {
  EXPECT_EQ(bleu({}, {"", "", ""}), 0.0);  // B2
  BleuOptions o;
  o.tokenizer = TokenizerKind::kNone;
  EXPECT_DOUBLE_EQ(bleu(o), 49.19195660047277);  // B3
  o = {};
  o.smoothing = Smoothing::kNone;
  EXPECT_DOUBLE_EQ(bleu(o), 48.530827009929865);  // B4
  o = {};
  o.tokenizer = TokenizerKind::kIntl;
  EXPECT_DOUBLE_EQ(bleu(o), 43.91623493336995);  // B5
  o = {};
  o.tokenizer = TokenizerKind::kChar;
  EXPECT_DOUBLE_EQ(bleu(o), 72.61064153440596);
  o = {};
  o.smoothing = Smoothing::kAddK;
  EXPECT_DOUBLE_EQ(bleu(o), 52.70109002482467);
  o = {};
  o.tokenizer = TokenizerKind::kZh;
  EXPECT_DOUBLE_EQ(bleu(o), 48.530827009929865);
  EXPECT_DOUBLE_EQ(bleu({}, H, {R[0]}), 45.06750632106114);
  EXPECT_DOUBLE_EQ(bleu({}, H, {R[1]}), 28.330553664429278);
  const char* expected[] = {"77.65", "60.50", "53.93", "48.53", "46.14", "43.28"};  // B6
  for (int k = 1; k <= 6; ++k) {
    o = {};
    o.max_ngram_order = k;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", bleu(o));
    EXPECT_STREQ(buf, expected[k - 1]) << "order " << k;
  }
}

// raw_corpus_bleu: floor smoothing, effective order, no tokenization.
double raw(const std::vector<std::string>& h, const std::vector<std::vector<std::string>>& r,
           double v) {
  BleuOptions o;
  o.tokenizer = TokenizerKind::kNone;
  o.smoothing = Smoothing::kFloor;
  o.smooth_value = v;
  o.effective_order = true;
  return bleu(o, h, r);
}

TEST(Bleu, RawCorpusBleu) {
  EXPECT_EQ(raw({"this is a test", "another test"}, {{"ref1", "ref2"}}, 0.01), 0.0);  // B7
  EXPECT_DOUBLE_EQ(raw({"this is a test"}, {{"this is a test"}}, .01), 100.00000000000004);
  EXPECT_DOUBLE_EQ(raw({"this is a fest"}, {{"this is a test"}}, .01), 22.3606797749979);
  EXPECT_DOUBLE_EQ(raw({"test"}, {{"a test"}}, .01), 36.78794411714425);
  EXPECT_DOUBLE_EQ(raw({"a little test"}, {{"a test"}}, .01), 3.2182979486854326);
  EXPECT_EQ(raw({"am I am a character sequence"}, {{"I am a symbol string sequence a a"}}, 0.0),
            0.0);
}

TEST(Bleu, ComputeBleuDirect) {
  EXPECT_DOUBLE_EQ(
      compute_bleu({9, 7, 5, 3}, {10, 8, 6, 4}, 11, 11, Smoothing::kNone, std::nullopt, false)
          .score,
      83.75922397086269);  // B15
  // B16: all exactly 0.
  EXPECT_EQ(compute_bleu({0, 0, 0, 0}, {4, 4, 2, 1}, 0, 1, Smoothing::kFloor, 0.0, false).score,
            0.0);
  EXPECT_EQ(
      compute_bleu({0, 0, 0, 0}, {10, 11, 12, 0}, 14, 10, Smoothing::kFloor, 0.0, false).score,
      0.0);
  EXPECT_EQ(compute_bleu({6, 5, 4, 0}, {6, 5, 4, 3}, 6, 6, Smoothing::kFloor, 0.0, false).score,
            0.0);
  EXPECT_EQ(compute_bleu({0, 0, 0, 0}, {0, 0, 0, 0}, 1, 5, Smoothing::kFloor, 0.01, false).score,
            0.0);
  // "a" vs ["a", ""]: the total = 0 break without effective order gives 0; with it, 100.
  EXPECT_EQ(bleu({}, {"a"}, {{"a"}, {""}}), 0.0);
}

struct SentenceCase {
  Smoothing smoothing;
  std::optional<double> value;
  TokenizerKind tok;
  bool lc;
  double expected;
};

TEST(Bleu, SentenceLevel) {
  const std::string sys =
      "Produc\u021bia de zah\u0103r prim\u0103 va fi exprimat\u0103 \u00een ceea ce prive\u0219te "
      "zah\u0103rul alb;";
  const std::string ref =
      "produc\u0163ia de zah\u0103r brut se exprim\u0103 \u00een zah\u0103r alb;";
  const SentenceCase cases[] = {
      {Smoothing::kExp, {}, TokenizerKind::k13a, false, 8.493098745313148},
      {Smoothing::kNone, {}, TokenizerKind::k13a, false, 0.0},
      {Smoothing::kFloor, {}, TokenizerKind::k13a, false, 4.516881220954753},
      {Smoothing::kFloor, 0.5, TokenizerKind::k13a, false, 10.100053456347073},
      {Smoothing::kAddK, {}, TokenizerKind::k13a, false, 14.882560178972215},
      {Smoothing::kAddK, 2, TokenizerKind::k13a, false, 21.389460275371086},
      {Smoothing::kExp, {}, TokenizerKind::kNone, false, 7.347053125977879},
      {Smoothing::kExp, {}, TokenizerKind::kIntl, false, 8.493098745313148},
      {Smoothing::kExp, {}, TokenizerKind::kChar, false, 40.875973647629166},
      {Smoothing::kExp, {}, TokenizerKind::kChar, true, 42.02678206410298},
  };
  for (const auto& c : cases) {
    BleuOptions o{.tokenizer = c.tok,
                  .lowercase = c.lc,
                  .smoothing = c.smoothing,
                  .smooth_value = c.value,
                  .effective_order = true};
    Bleu m(o);
    EXPECT_DOUBLE_EQ(sentence(m, sys, {ref}).score, c.expected) << tokenizer_name(c.tok);
  }
  BleuOptions o;
  o.effective_order = true;
  Bleu m(o);
  EXPECT_EQ(sentence(m, sys, {ref}).verbose,
            "35.7/15.4/4.2/2.3 (BP = 1.000 ratio = 1.400 hyp_len = 14 ref_len = 10)");
  o.smoothing = Smoothing::kAddK;
  Bleu addk(o);
  EXPECT_EQ(sentence(addk, sys, {ref}).verbose.substr(0, 19), "35.7/21.4/7.7/8.3 (");
  for (Smoothing s : {Smoothing::kExp, Smoothing::kNone, Smoothing::kFloor, Smoothing::kAddK}) {
    o.smoothing = s;
    Bleu z(o);
    const Score sc = sentence(z, "this is a cat", {"okay thanks"});
    EXPECT_EQ(sc.score, 0.0);
    EXPECT_NE(sc.verbose.find("(BP = 1.000 ratio = 2.000"), std::string::npos);
  }
}

TEST(Bleu, SignatureSmoothValues) {
  BleuOptions o;
  o.smoothing = Smoothing::kFloor;
  EXPECT_NE(Bleu(o).signature().format(false).find("smooth:floor[0.10]"), std::string::npos);
  o.smooth_value = 0.25;
  EXPECT_NE(Bleu(o).signature().format(false).find("smooth:floor[0.25]"), std::string::npos);
  o.smoothing = Smoothing::kAddK;
  o.smooth_value.reset();
  o.lowercase = true;
  EXPECT_NE(Bleu(o).signature().format(false).find("case:lc|eff:no|tok:13a|smooth:add-k[1.00]"),
            std::string::npos);
}

}  // namespace
}  // namespace realmt::metrics
