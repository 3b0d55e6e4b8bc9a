// realmt-bleu's command line read as sacreBLEU's argparse (Python 3.11) reads it: the forms
// sacreBLEU users type (issue 33). regression/bleu/cli_habits.py compares with sacreBLEU itself.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "metrics/cli_options.h"

namespace realmt::metrics {
namespace {

// The exit code and message of a command line parse_cli refuses; code 0 when it parses.
CliExit refusal(const std::vector<std::string>& args) {
  try {
    parse_cli(args);
  } catch (const CliExit& e) {
    return e;
  }
  return {0, ""};
}

TEST(CliArgparse, EqualsForms) {
  const CliOptions o =
      parse_cli({"--tokenize=intl", "-w=3", "-i=h.txt", "--metrics=chrf", "--test-set=wmt14"});
  EXPECT_EQ(o.tokenize, "intl");
  EXPECT_EQ(o.width, 3);
  EXPECT_EQ(o.inputs, std::vector<std::string>{"h.txt"});
  EXPECT_EQ(o.metrics, std::vector<std::string>{"chrf"});
  EXPECT_EQ(o.test_set, "wmt14");
}

TEST(CliArgparse, UnambiguousPrefixesAndAttachedValues) {
  const CliOptions o =
      parse_cli({"--tok", "zh", "--metric", "bleu", "ter", "--sc", "-twmt17", "-len-de", "-w4"});
  EXPECT_EQ(o.tokenize, "zh");
  EXPECT_EQ(o.metrics, (std::vector<std::string>{"bleu", "ter"}));
  EXPECT_TRUE(o.score_only);
  EXPECT_EQ(o.test_set, "wmt17");
  EXPECT_EQ(o.language_pair, "en-de");
  EXPECT_EQ(o.width, 4);
}

TEST(CliArgparse, AmbiguousPrefixesAreUsageErrorsNamingTheCandidates) {
  const CliExit e = refusal({"--t", "wmt14"});
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.message.find("realmt-bleu: error: ambiguous option: --t could match --test-set, "
                           "--tokenize, --ter-case-sensitive, "
                           "--ter-asian-support, --ter-no-punct, --ter-normalized\n"),
            std::string::npos)
      << e.message;
  EXPECT_NE(refusal({"-to", "13a"}).message.find("could match -t, -tok"), std::string::npos);
  EXPECT_NE(refusal({"--paired-b"}).message.find("could match --paired-bs, --paired-bs-n"),
            std::string::npos);
}

TEST(CliArgparse, RealmtOptionsNeverTakeASacreBleuPrefix) {
  EXPECT_TRUE(parse_cli({"--lo"}).bleu_lowercase);  // --lowercase, not --log or --log-level
  EXPECT_EQ(parse_cli({"--thr", "3"}).threads, 3);  // no sacreBLEU option starts so
  EXPECT_EQ(parse_cli({"--log-l", "warn"}).log_level, "warn");
}

TEST(CliArgparse, CombinedFlagsNegativeNumbersAndReferenceRuns) {
  const CliOptions o = parse_cli({"-b", "r1", "r2", "-qbw3", "-sv", "-0.5", "-i", "h"});
  EXPECT_TRUE(o.quiet && o.score_only);
  EXPECT_EQ(o.width, 3);
  EXPECT_EQ(o.smooth_value, -0.5);
  EXPECT_EQ(o.refs, (std::vector<std::string>{"r1", "r2"}));
  // argparse fills the reference list from the first run of free words only.
  const CliExit e = refusal({"r1", "-b", "r2", "-i", "h"});
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.message.find("unrecognized arguments: r2"), std::string::npos) << e.message;
}

TEST(CliArgparse, ExitCodesAsSacreBleu) {
  EXPECT_EQ(refusal({"-tok", "foo"}).code, 2);
  EXPECT_NE(refusal({"-tok", "foo"})
                .message.find("argument --tokenize/-tok: invalid choice: 'foo' (choose from"),
            std::string::npos);
  EXPECT_EQ(
      refusal({"--quiet=1"}).message.find("argument --quiet/-q: ignored explicit argument '1'") !=
          std::string::npos,
      true);
  EXPECT_EQ(refusal({"-bx"}).code, 2);
  EXPECT_EQ(refusal({"-sv"}).code, 2);
  EXPECT_EQ(refusal({"-w", "x"}).code, 2);
  EXPECT_EQ(refusal({"-f", "xml"}).code, 2);
  EXPECT_NE(
      refusal({"--paired-bs", "--paired-ar"})
          .message.find("argument --paired-ar/-par: not allowed with argument --paired-bs/-pbs"),
      std::string::npos);
  // sacreBLEU takes these; realmt-bleu refuses them after parsing: not a usage error.
  EXPECT_EQ(refusal({"--origlang", "fr"}).code, 1);
  EXPECT_EQ(refusal({"--download", "wmt14"}).code, 1);
  EXPECT_EQ(refusal({"-h", "--bogus"}).code, 0);  // argparse stops at -h
  EXPECT_EQ(parse_cli({"-f", "latex"}).format, OutputFormat::kLatex);
}

}  // namespace
}  // namespace realmt::metrics
