// The Moses tokenizer and the papers' tokenized BLEU (metrics/moses_tokenizer.h, moses_bleu.h).
// Expected lines are tokenizer.perl's own output on these inputs with the prefix list below
// (the 2016 script of the mosestokenizer package, and the same with master's end-of-line
// rules); regression/bleu/moses_pipeline.sh compares whole test sets with the script.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "metrics/moses_bleu.h"
#include "metrics/moses_tokenizer.h"

namespace realmt::metrics {
namespace {

const char* kPrefixes = "# test list\nM\nvs\nNo #NUMERIC_ONLY#\n\n0\n";

MosesTokenizer make(const std::string& lang, bool aggressive, bool master = true) {
  std::istringstream in(kPrefixes);
  MosesTokenizerOptions o;
  o.lang = lang;
  o.aggressive = aggressive;
  o.final_dot_rules = master;
  return MosesTokenizer(o, parse_nonbreaking_prefixes(in));
}

TEST(MosesTokenizer, PrefixFile) {
  std::istringstream in(kPrefixes);
  const NonbreakingPrefixes p = parse_nonbreaking_prefixes(in);
  EXPECT_EQ(p.kind.size(), 3u);  // comment, empty line and "0" skipped
  EXPECT_EQ(p.get("M"), 1);
  EXPECT_EQ(p.get("No"), 2);
  EXPECT_EQ(p.get("x"), 0);
}

TEST(MosesTokenizer, FrenchAggressive) {
  const MosesTokenizer t = make("fr", true);
  EXPECT_EQ(t.tokenize("On dit qu'il est là... M. Dupont, 5,300 vs. Paris-Nord"),
            "On dit qu&apos; il est là ... M. Dupont , 5,300 vs. Paris @-@ Nord");
  EXPECT_EQ(t.tokenize("Le prix: 3.5 euros (environ)... ou « bien » autre-chose."),
            "Le prix : 3.5 euros ( environ ) ... ou « bien » autre @-@ chose .");
  EXPECT_EQ(t.tokenize("No. 5 et No. Trois et M. x."), "No. 5 et No . Trois et M. x .");
  EXPECT_EQ(t.tokenize("  espaces\tet tab  "), "espaces et tab");
  EXPECT_EQ(t.tokenize("Voir U.S. Army et etc.."), "Voir U.S. Army et etc ..");
  EXPECT_EQ(t.tokenize(" \t "), " \t ");  // blank lines are printed as read
  EXPECT_EQ(make("fr", false).tokenize("autre-chose"), "autre-chose");
}

TEST(MosesTokenizer, EndOfLineRules) {
  // mosesdecoder master: the last word's dot, a final "N," and a final ".'" are split.
  const MosesTokenizer master = make("fr", true);
  EXPECT_EQ(master.tokenize("a,b,,c 1,2, et 3,"), "a , b , , c 1,2 , et 3 ,");
  EXPECT_EQ(master.tokenize("« Il l'a dit.'"), "« Il l&apos; a dit . &apos; ");
  EXPECT_EQ(master.tokenize("Fin de la phrase avec M."), "Fin de la phrase avec M .");
  EXPECT_EQ(make("en", false).tokenize("So am I."), "So am I .");
  // The 2016 script (tokenizer-v1.1.perl) keeps them.
  const MosesTokenizer v11 = make("fr", true, false);
  EXPECT_EQ(v11.tokenize("a,b,,c 1,2, et 3,"), "a , b , , c 1,2 , et 3,");
  EXPECT_EQ(v11.tokenize("« Il l'a dit.'"), "« Il l&apos; a dit.&apos;");
  EXPECT_EQ(v11.tokenize("Fin de la phrase avec M."), "Fin de la phrase avec M.");
}

TEST(MosesTokenizer, EnglishAndOtherLanguages) {
  const std::string s = "It's the 1990's, isn't it? \"Yes\" [a|b] <c> & d.'";
  EXPECT_EQ(make("en", false).tokenize(s),
            "It &apos;s the 1990 &apos;s , isn &apos;t it ? &quot; Yes &quot; &#91; a &#124; b "
            "&#93; &lt; c &gt; "
            "&amp; d . &apos; ");
  EXPECT_EQ(make("de", false).tokenize(s),
            "It &apos; s the 1990 &apos; s , isn &apos; t it ? &quot; Yes &quot; &#91; a &#124; b "
            "&#93; &lt; c "
            "&gt; &amp; d . &apos;");
}

TEST(MosesBleu, CompoundSplit) {
  EXPECT_EQ(compound_split("a-b-c"), "a ##AT##-##AT## b-c");  // each match takes both neighbours
  EXPECT_EQ(compound_split("x @-@ y"), "x @ ##AT##-##AT## @ y");
  EXPECT_EQ(compound_split("- a -b c-"), "- a -b c-");
}

TEST(MosesBleu, Pipeline) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "realmt_moses_bleu_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "nonbreaking_prefix.fr") << kPrefixes;
  MosesBleuOptions o;
  o.lang = "fr";
  o.aggressive = true;
  o.prefixes_dir = dir.string();
  EXPECT_EQ(MosesBleuTokenizer(o).tokenize("l\u2019avion-cargo de M. X"),
            "l&apos; avion @-@ cargo de M. X");
  EXPECT_EQ(MosesBleuTokenizer(o).name(), "moses-a-fr");
  o.compound_split = true;
  EXPECT_EQ(MosesBleuTokenizer(o).tokenize("l\u2019avion-cargo"),
            "l&apos; avion @ ##AT##-##AT## @ cargo");
  EXPECT_EQ(MosesBleuTokenizer(o).name(), "moses-a-fr+compound");
  auto error = [](const MosesBleuOptions& x) {
    try {
      MosesBleuTokenizer{x};
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  o.lang = "xx";
  EXPECT_NE(error(o).find("nonbreaking_prefix.xx"), std::string::npos) << error(o);
  o.lang = "";
  EXPECT_NE(error(o).find("give -l SRC-TRG"), std::string::npos) << error(o);
  o.lang = "fr";
  o.prefixes_dir = "";
  EXPECT_NE(error(o).find("give --moses-prefixes DIR"), std::string::npos) << error(o);
  std::filesystem::remove_all(dir);
}

TEST(MosesBleu, MultiBleuLine) {
  // [hyp_len, ref_len, correct_1..4, total_1..4], values worked out by hand from the script's
  // formula.
  EXPECT_EQ(multi_bleu_line({10, 12, 8, 5, 3, 1, 10, 9, 8, 7}),
            "BLEU = 32.16, 80.0/55.6/37.5/14.3 (BP=0.819, ratio=0.833, hyp_len=10, ref_len=12)\n");
  EXPECT_EQ(multi_bleu_line({12, 11, 9, 4, 0, 0, 12, 11, 10, 9}),
            "BLEU = 0.00, 75.0/36.4/0.0/0.0 (BP=1.000, ratio=1.091, hyp_len=12, ref_len=11)\n");
  EXPECT_THROW(multi_bleu_line({0, 11, 0, 0, 0, 0, 0, 0, 0, 0}), Error);
  EXPECT_THROW(multi_bleu_line({3, 0, 0, 0, 0, 0, 3, 2, 1, 0}), Error);
}

}  // namespace
}  // namespace realmt::metrics
