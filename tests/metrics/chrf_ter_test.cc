// sacreBLEU 2.6.0's numbers for chrF, TER and TER-tokenizer conformance vectors.
#include <gtest/gtest.h>

#include "core/error.h"
#include "metrics/chrf.h"
#include "metrics/ter.h"
#include "metrics_test_util.h"

namespace realmt::metrics {
namespace {

using testing::corpus;
using testing::sentence;

double chrf(const std::vector<std::string>& h, const std::vector<std::string>& r, ChrfOptions o) {
  Chrf m(o);
  return corpus(m, h, {r}).score;
}

TEST(Chrf, Beta3Cases) {
  ChrfOptions eps{.beta = 3, .eps_smoothing = true}, eff{.beta = 3};
  EXPECT_NEAR(chrf({"abcdefg"}, {"hijklmnop"}, eps), 0.0, 1e-12);
  EXPECT_EQ(chrf({"abcdefg"}, {"hijklmnop"}, eff), 0.0);
  EXPECT_EQ(chrf({""}, {"reference"}, eff), 0.0);
  EXPECT_DOUBLE_EQ(chrf({"aa"}, {"ab"}, eps), 8.333333333333343);
  EXPECT_DOUBLE_EQ(chrf({"aa"}, {"ab"}, eff), 25.0);
  EXPECT_DOUBLE_EQ(chrf({"a", "b"}, {"a", "c"}, eff), 50.0);
  EXPECT_DOUBLE_EQ(chrf({"a"}, {"a"}, eps), 16.666666666666668);
  EXPECT_DOUBLE_EQ(chrf({"a b c"}, {"abc"}, eff), 100.0);
  const std::string h11 =
      " risk assessment must be made of those who are qualified and expertise in the sector - "
      "these are the scientists .";
  const std::string r11 =
      "risk assessment has to be undertaken by those who are qualified and expert in that area - "
      "that is the scientists .";
  EXPECT_DOUBLE_EQ(chrf({h11}, {r11}, eps), 63.36173005106315);
  EXPECT_DOUBLE_EQ(chrf({h11}, {r11}, eff), 63.36173030321479);
  const std::string h12 =
      " Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. ";
  const std::string r12 =
      "Das Verh\u00e4ltnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.";
  EXPECT_DOUBLE_EQ(chrf({h12}, {r12}, eps), 64.13022155933443);
  EXPECT_DOUBLE_EQ(chrf({h12}, {r12}, eff), 64.13026983156146);
  ChrfOptions ws = eff;
  ws.whitespace = true;
  EXPECT_DOUBLE_EQ(
      chrf({"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."}, {r12}, ws),
      67.34816062977241);
  EXPECT_DOUBLE_EQ(chrf({h11.substr(1)}, {r11}, ws), 65.24144274491823);
  // Default chrF2 and chrF2++.
  EXPECT_DOUBLE_EQ(chrf({h11}, {r11}, {}), 63.43165368117263);
  EXPECT_DOUBLE_EQ(chrf({h11}, {r11}, {.word_order = 2}), 59.23655108183626);
  EXPECT_DOUBLE_EQ(chrf({h12}, {r12}, {.word_order = 2}), 61.58723245629576);
  EXPECT_DOUBLE_EQ(chrf({"aa"}, {"ab"}, {.word_order = 2}), 16.666666666666664);
  EXPECT_DOUBLE_EQ(chrf({"a b c"}, {"abc"}, {.word_order = 2}), 75.0);
  ChrfOptions all{.word_order = 2, .lowercase = true, .whitespace = true, .eps_smoothing = true};
  Chrf m(all);
  EXPECT_DOUBLE_EQ(corpus(m, {"a"}, {{"a"}}).score, 25.0);
  EXPECT_EQ(m.signature().format(false),
            "nrefs:1|case:lc|eff:no|nc:6|nw:2|space:yes|version:2.6.0");
  EXPECT_EQ(m.name(), "chrF2++");
}

TEST(Chrf, CzechSentences) {
  ChrfOptions eps{.eps_smoothing = true};
  EXPECT_DOUBLE_EQ(chrf({"Co n\u00e1s nejv\u00edc tr\u00e1p\u00ed, proto\u017ee l\u00e9ka\u0159i "
                         "si vyb\u00edraj\u00ed, kdo bude \u017e\u00edt a kdo zem\u0159e."},
                        {"Nejv\u00edce smutn\u00ed jsme z toho, \u017ee mus\u00edme rozhodovat o "
                         "tom, kdo bude \u017e\u00edt a kdo zem\u0159e."},
                        eps),
                   39.14078509431498);
  std::vector<std::string_view> w;
  chrf_words("(hi) ... a", w);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0], "(hi");
  EXPECT_EQ(w[3], ".");
}

TEST(Ter, EditRateChecks) {
  auto ids = [](const std::string& s) {
    std::vector<uint32_t> v;
    for (char c : s) {
      if (c != ' ') v.push_back(static_cast<uint32_t>(c));
    }
    return v;
  };
  EXPECT_EQ(translation_edit_rate(ids("abcdef"), ids("defabc")), std::make_pair(1LL, 6LL));
  EXPECT_EQ(translation_edit_rate(ids("aaab"), ids("baaa")), std::make_pair(1LL, 4LL));
  EXPECT_EQ(translation_edit_rate(ids("xyz"), ids("abcde")), std::make_pair(5LL, 5LL));
  EXPECT_EQ(translation_edit_rate(ids("abcdefghijkl"), ids("lkjihgfedcba")),
            std::make_pair(11LL, 12LL));
  EXPECT_EQ(translation_edit_rate(ids("defghabc"), ids("abcdefgh")), std::make_pair(1LL, 8LL));
}

double ter(const std::string& h, const std::string& r) {
  Ter m{TerOptions{}};
  return sentence(m, h, {r}).score;
}

TEST(Ter, Scores) {
  EXPECT_EQ(ter("aaaa bbbb cccc dddd", "aaaa bbbb cccc dddd"), 0.0);
  EXPECT_EQ(ter("dddd eeee ffff", "aaaa bbbb cccc"), 100.0);
  EXPECT_EQ(ter("", "a"), 100.0);
  EXPECT_EQ(ter("a", ""), 100.0);
  EXPECT_EQ(ter("", ""), 0.0);
  EXPECT_EQ(ter("d e f g h a b c", "a b c d e f g h"), 12.5);
  Ter m{TerOptions{}};
  sentence(m, "a", {"b"});
  EXPECT_EQ(m.signature().format(false),
            "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0");
  EXPECT_EQ(m.signature().format(true), "#:1|c:lc|t:tercom|nr:no|pn:yes|as:no|v:2.6.0");
}

TEST(Ter, HugeLinesAreAnErrorNamingTheLineNotATerabyteAllocation) {
  // Two 600,000-word lines would need a 600,001 x 600,001 edit matrix (3 TB).
  std::string huge;
  for (int i = 0; i < 600000; ++i) huge += i % 2 ? "b " : "a ";
  Ter m{TerOptions{}};
  m.set_references({{"fine", huge}});
  try {
    m.corpus_stats({"fine", huge}, 2);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("line 2: TER of a 600000-word hypothesis against a 600000-word reference"),
              std::string::npos)
        << msg;
  }
}

TEST(Ter, Tokenizer) {
  TerOptions d, np{.no_punct = true}, norm{.normalized = true},
      asian{.normalized = true, .asian_support = true};
  EXPECT_EQ(ter_tokenize("A B C D.", d), "a b c d.");
  EXPECT_EQ(ter_tokenize("", d), "");
  EXPECT_EQ(ter_tokenize("A ; B ) C : D.", np), "a b c d");
  EXPECT_EQ(ter_tokenize("a b (c) d.", norm), "a b ( c ) d .");
  EXPECT_EQ(ter_tokenize("Jim's car.", norm), "jim 's car .");
  EXPECT_EQ(ter_tokenize("4.2", norm), "4.2");
  EXPECT_EQ(ter_tokenize("\u7f8e\u4f17\u9662\u516c\u5e03\u5bf9\u7279", asian),
            "美 众 院 公 布 对 特");
  EXPECT_EQ(ter_tokenize("\u308a\u306e\u62f3\u9283\u3092\u6301", asian), "りの 拳 銃 を 持");
  EXPECT_EQ(ter_tokenize("He said: \"It's John's car, isn't it?\"", norm),
            "he said : \" it 's john 's car , isn't it ? \"");
  EXPECT_EQ(ter_tokenize("Price is $1,000.50 - or 3-4 items.", norm),
            "price is $ 1,000.50 - or 3 - 4 items .");
  TerOptions all{.normalized = true, .no_punct = true, .asian_support = true};
  EXPECT_EQ(ter_tokenize("東京は、日本の首都です。", all), "東 京 は 日 本 の 首 都 です");
}

}  // namespace
}  // namespace realmt::metrics
