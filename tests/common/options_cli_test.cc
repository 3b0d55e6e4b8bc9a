// The command line: every type, the Marian shorthands, errors, --help.
#include "options_fixture.h"

namespace realmt {
namespace {

using testing::bind;
using testing::error_of;
using testing::Fields;
using testing::parse;

TEST(OptionsCli, DefaultsStayWhenNothingIsGiven) {
  Fields f;
  OptionSet set = bind(&f);
  EXPECT_TRUE(parse(set, {}));
  EXPECT_EQ(f.enc_depth, 6);
  EXPECT_EQ(f.devices, std::vector<int>{0});
  EXPECT_FALSE(set.was_set("enc-depth"));
  EXPECT_EQ(set.origin("enc-depth"), "default");
}

TEST(OptionsCli, EveryType) {
  Fields f;
  OptionSet set = bind(&f);
  EXPECT_TRUE(parse(set, {"--tied-embeddings-all",
                          "--enc-depth",
                          "12",
                          "--transformer-dropout",
                          "0.25",
                          "--residual-attention",
                          "sum",
                          "--model=out/m.npz",
                          "--mini-batch-words",
                          "5000000000",
                          "--learn-rate",
                          "1e-4",
                          "--after",
                          "2e",
                          "--valid-freq",
                          "500000t",
                          "--shuffle",
                          "false",
                          "--train-sets",
                          "a.en",
                          "a.fr",
                          "--optimizer-params",
                          "0.9",
                          "0.997",
                          "1e-08",
                          "--valid-metrics",
                          "bleu",
                          "chrf",
                          "--devices",
                          "0",
                          "1",
                          "2"}));
  EXPECT_TRUE(f.tied);
  EXPECT_EQ(f.enc_depth, 12);
  EXPECT_FLOAT_EQ(f.dropout, 0.25f);
  EXPECT_EQ(f.rf_mode, "sum");
  EXPECT_EQ(f.model, "out/m.npz");
  EXPECT_EQ(f.words, 5000000000LL);
  EXPECT_DOUBLE_EQ(f.learn_rate, 1e-4);
  EXPECT_EQ(f.after, (Duration{Duration::Unit::kEpochs, 2}));
  EXPECT_EQ(f.valid_freq, (Duration{Duration::Unit::kTokens, 500000}));
  EXPECT_FALSE(f.shuffle);
  EXPECT_EQ(f.train_sets, (std::vector<std::string>{"a.en", "a.fr"}));
  EXPECT_EQ(f.optimizer_params, (std::vector<double>{0.9, 0.997, 1e-08}));
  EXPECT_EQ(f.metrics, (std::vector<std::string>{"bleu", "chrf"}));
  EXPECT_EQ(f.devices, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(set.was_set("devices"));
  EXPECT_EQ(set.origin("devices"), "command line");
  EXPECT_TRUE(set.was_set("model"));
}

TEST(OptionsCli, BooleanSpellings) {
  for (const auto& [args, want] :
       std::vector<std::pair<std::vector<std::string>, bool>>{{{"--shuffle"}, true},
                                                              {{"--shuffle", "false"}, false},
                                                              {{"--shuffle", "FALSE"}, false},
                                                              {{"--shuffle=no"}, false},
                                                              {{"--shuffle=off"}, false},
                                                              {{"--shuffle=0"}, false},
                                                              {{"--shuffle=yes"}, true},
                                                              {{"--shuffle", "true"}, true}}) {
    Fields f;
    f.shuffle = !want;
    OptionSet set = bind(&f);
    parse(set, args);
    EXPECT_EQ(f.shuffle, want) << args.back();
  }
  // A following token that is not true/false stays positional.
  Fields f;
  OptionSet set = bind(&f);
  parse(set, {"--tied-embeddings-all", "no.txt"});
  EXPECT_TRUE(f.tied);
  EXPECT_EQ(f.refs, std::vector<std::string>{"no.txt"});
}

TEST(OptionsCli, ValuesThatLookLikeOptions) {
  Fields f;
  OptionSet set = bind(&f);
  parse(set, {"--model", "-", "--enc-depth", "-3", "--optimizer-params", "-1", "-0.5",
              "--learn-rate", "+2"});
  EXPECT_EQ(f.model, "-");
  EXPECT_EQ(f.enc_depth, -3);
  EXPECT_EQ(f.optimizer_params, (std::vector<double>{-1, -0.5}));
  EXPECT_EQ(f.learn_rate, 2.0);
}

TEST(OptionsCli, ShortNamesPositionalsAndDoubleDash) {
  Fields f;
  OptionSet set = bind(&f);
  parse(set, {"ref0", "-m", "x.npz", "-d", "3", "4", "-t", "c.en", "c.fr", "--", "--ref1", "-d"});
  EXPECT_EQ(f.model, "x.npz");
  EXPECT_EQ(f.devices, (std::vector<int>{3, 4}));
  EXPECT_EQ(f.train_sets, (std::vector<std::string>{"c.en", "c.fr"}));
  EXPECT_EQ(f.refs, (std::vector<std::string>{"ref0", "--ref1", "-d"}));
}

TEST(OptionsCli, EmptyArgv) {
  Fields f;
  OptionSet set = bind(&f);
  std::ostringstream out;
  EXPECT_TRUE(set.parse(0, nullptr, out));
  EXPECT_EQ(f.enc_depth, 6);
}

TEST(OptionsCli, RepeatedOptionsReplace) {
  Fields f;
  OptionSet set = bind(&f);
  parse(set, {"--enc-depth", "2", "--devices", "1", "2", "--enc-depth=3", "--devices", "5",
              "--train-sets="});
  EXPECT_EQ(f.enc_depth, 3);
  EXPECT_EQ(f.devices, std::vector<int>{5});
  EXPECT_TRUE(f.train_sets.empty());
  EXPECT_TRUE(set.was_set("train-sets"));
}

TEST(OptionsCli, UnknownOptionNamesClosest) {
  Fields f;
  OptionSet set = bind(&f);
  const std::string msg = error_of([&] { parse(set, {"--enc-dpeth", "4"}); });
  EXPECT_HAS(msg, "'--enc-dpeth'");
  EXPECT_HAS(msg, "command line");
  EXPECT_HAS(msg, "did you mean '--enc-depth'");
  EXPECT_HAS(error_of([&] { parse(set, {"--dump-confg"}); }), "'--dump-config'");
  EXPECT_HAS(error_of([&] { parse(set, {"-q"}); }), "-m (--model)");
}

TEST(OptionsCli, TypeErrorsNameKeyAndType) {
  Fields f;
  OptionSet set = bind(&f);
  std::string msg = error_of([&] { parse(set, {"--enc-depth", "abc"}); });
  EXPECT_HAS(msg, "'enc-depth'");
  EXPECT_HAS(msg, "on the command line");
  EXPECT_HAS(msg, "an integer");
  EXPECT_HAS(msg, "'abc'");
  EXPECT_EQ(f.enc_depth, 6);  // unchanged
  EXPECT_HAS(error_of([&] { parse(set, {"--enc-depth", "99999999999"}); }), "32-bit");
  EXPECT_HAS(error_of([&] { parse(set, {"--enc-depth", "4.5"}); }), "an integer");
  EXPECT_HAS(error_of([&] { parse(set, {"--learn-rate", "fast"}); }), "a number");
  EXPECT_HAS(error_of([&] { parse(set, {"--shuffle=maybe"}); }), "a boolean");
  EXPECT_HAS(error_of([&] { parse(set, {"--after", "3x"}); }), "u (updates)");
  msg = error_of([&] { parse(set, {"--devices", "0", "one"}); });
  EXPECT_HAS(msg, "'one' (one item of the list)");
  EXPECT_HAS(error_of([&] { parse(set, {"--enc-depth"}); }), "needs a value (INT)");
  EXPECT_HAS(error_of([&] { parse(set, {"--devices"}); }), "at least one value");
  EXPECT_HAS(error_of([&] { parse(set, {"-c"}); }), "needs a config file");
}

TEST(OptionsCli, ChoicesListAllowedValues) {
  Fields f;
  OptionSet set = bind(&f);
  std::string msg = error_of([&] { parse(set, {"--residual-attention", "avg"}); });
  EXPECT_HAS(msg, "'residual-attention'");
  EXPECT_HAS(msg, "one of: none, sum, mean");
  EXPECT_HAS(msg, "'avg'");
  msg = error_of([&] { parse(set, {"--valid-metrics", "bleu", "ter"}); });
  EXPECT_HAS(msg, "'ter'");
  EXPECT_HAS(msg, "cross-entropy, perplexity, bleu, chrf");
  EXPECT_EQ(f.metrics, std::vector<std::string>{"cross-entropy"});
}

TEST(OptionsCli, PositionalsWithoutDeclarationAreErrors) {
  Fields f;
  OptionSet set = bind(&f, /*with_positional=*/false);
  EXPECT_HAS(error_of([&] {
               parse(set, {"--enc-depth", "3", "stray"});
             }),
             "unexpected argument 'stray'");
}

TEST(OptionsCli, HelpListsGroupsDefaultsAndHelp) {
  Fields f;
  OptionSet set = bind(&f);
  std::string out;
  EXPECT_FALSE(parse(set, {"--enc-depth", "3", "--help"}, &out));
  EXPECT_EQ(f.enc_depth, 6);  // help exits before applying anything
  for (const char* part :
       {"realmt-test: Exercises every option type",
        "Model:", "Training:", "Hardware:", "Config:", "-c, --config FILE...", "--dump-config",
        "--enc-depth INT", "Number of encoder layers (default: 6)", "(default: 10000u)",
        "(default: 0.0003)", "--residual-attention {none|sum|mean}", "(default: mean)",
        "-m, --model STRING", "--devices INT...", "(default: 0.9 0.98 1e-09)", "(default: (empty))",
        "[references...]", "Reference files"}) {
    EXPECT_HAS(out, part);
  }
  // Groups in declaration order; bools show no metavar.
  EXPECT_LT(out.find("Model:"), out.find("Training:"));
  EXPECT_LT(out.find("Training:"), out.find("Hardware:"));
  EXPECT_HAS(out, "--shuffle  ");
  EXPECT_EQ(out.find("--shuffle BOOL"), std::string::npos);
  // Multi-line help stays in the help column.
  EXPECT_HAS(out, "\n" + std::string(32, ' ') + "none, sum or mean of the scores");
  std::string out2;
  EXPECT_FALSE(parse(set, {"-h"}, &out2));
  EXPECT_EQ(out, out2);
}

}  // namespace
}  // namespace realmt
