// YAML configs: merge order, every type, errors with file:line, and the config dump.
#include "options_fixture.h"

namespace realmt {
namespace {

using testing::bind;
using testing::error_of;
using testing::Fields;
using testing::parse;
using testing::TempDir;

TEST(OptionsYaml, EveryTypeFromAFile) {
  TempDir dir;
  const std::string file = dir.write("all.yml",
                                     "# a Marian-style config\n"
                                     "tied-embeddings-all: true\n"
                                     "enc-depth: 12\n"
                                     "transformer-dropout: 0.3\n"
                                     "residual-attention: none\n"
                                     "model: \"m: x.npz\"\n"
                                     "mini-batch-words: 500000\n"
                                     "learn-rate: 0.0003e0\n"
                                     "after: 100Ku\n"
                                     "valid-freq: 5000\n"
                                     "shuffle: no\n"
                                     "train-sets:\n  - corpus.en\n  - corpus.fr\n"
                                     "optimizer-params: [0.9, 0.98, 1e-09]\n"
                                     "valid-metrics: bleu\n"
                                     "devices: [0, 1, 2, 3]\n");
  Fields f;
  OptionSet set = bind(&f);
  EXPECT_TRUE(parse(set, {"-c", file}));
  EXPECT_TRUE(f.tied);
  EXPECT_EQ(f.enc_depth, 12);
  EXPECT_FLOAT_EQ(f.dropout, 0.3f);
  EXPECT_EQ(f.rf_mode, "none");
  EXPECT_EQ(f.model, "m: x.npz");
  EXPECT_EQ(f.words, 500000);
  EXPECT_DOUBLE_EQ(f.learn_rate, 0.0003);
  EXPECT_EQ(f.after, (Duration{Duration::Unit::kUpdates, 100000}));
  EXPECT_EQ(f.valid_freq, (Duration{Duration::Unit::kUpdates, 5000}));
  EXPECT_FALSE(f.shuffle);
  EXPECT_EQ(f.train_sets, (std::vector<std::string>{"corpus.en", "corpus.fr"}));
  EXPECT_EQ(f.optimizer_params, (std::vector<double>{0.9, 0.98, 1e-9}));
  EXPECT_EQ(f.metrics, std::vector<std::string>{"bleu"});  // a scalar is a one-item list
  EXPECT_EQ(f.devices, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(set.origin("enc-depth"), file + ":3");
  EXPECT_EQ(set.origin("devices"), file + ":17");
}

TEST(OptionsYaml, LaterFilesWinAndTheCommandLineWinsOverFiles) {
  TempDir dir;
  const std::string a =
      dir.write("a.yml", "enc-depth: 2\nlearn-rate: 0.1\ndevices: [0, 1]\nmodel: a.npz\n");
  const std::string b = dir.write("b.yml", "enc-depth: 3\ndevices: [5]\n");
  Fields f;
  OptionSet set = bind(&f);
  // The command-line option comes before -c but still wins; -c repeats and takes several files.
  EXPECT_TRUE(parse(set, {"--model", "cli.npz", "-c", a, "--config", b}));
  EXPECT_EQ(f.enc_depth, 3);
  EXPECT_EQ(f.learn_rate, 0.1);
  EXPECT_EQ(f.devices, std::vector<int>{5});
  EXPECT_EQ(f.model, "cli.npz");
  EXPECT_EQ(set.origin("enc-depth"), b + ":1");
  EXPECT_EQ(set.origin("learn-rate"), a + ":2");
  EXPECT_EQ(set.origin("model"), "command line");

  Fields g;
  OptionSet set2 = bind(&g);
  EXPECT_TRUE(parse(set2, {"-c", b, a, "--enc-depth", "9"}));
  EXPECT_EQ(g.enc_depth, 9);
  EXPECT_EQ(g.devices, (std::vector<int>{0, 1}));
}

TEST(OptionsYaml, NullAndEmptyValues) {
  Fields f;
  f.train_sets = {"x"};
  OptionSet set = bind(&f);
  set.load_yaml_string("model:\ntrain-sets: []\ndevices: ~\n", "t.yml");
  EXPECT_EQ(f.model, "");
  EXPECT_TRUE(f.train_sets.empty());
  EXPECT_TRUE(f.devices.empty());
  EXPECT_HAS(error_of([&] { set.load_yaml_string("enc-depth:\n", "t.yml"); }),
             "'enc-depth' in t.yml:1 has no value");
  set.load_yaml_string("", "empty.yml");  // an empty file sets nothing
  set.load_yaml_string("# only a comment\n", "comment.yml");
}

TEST(OptionsYaml, UnknownKeyNamesClosestAndLine) {
  TempDir dir;
  const std::string file = dir.write("typo.yml", "enc-depth: 6\n\ntransformer-dropuot: 0.1\n");
  Fields f;
  OptionSet set = bind(&f);
  const std::string msg = error_of([&] { parse(set, {"-c", file}); });
  EXPECT_HAS(msg, "unknown option 'transformer-dropuot'");
  EXPECT_HAS(msg, file + ":3");
  EXPECT_HAS(msg, "did you mean 'transformer-dropout'");
}

TEST(OptionsYaml, TypeErrorsNameKeyLineAndType) {
  Fields f;
  OptionSet set = bind(&f);
  std::string msg =
      error_of([&] { set.load_yaml_string("after: 1e\nenc-depth: abc\n", "cfg.yml"); });
  EXPECT_HAS(msg, "'enc-depth' in cfg.yml:2");
  EXPECT_HAS(msg, "expected an integer");
  EXPECT_HAS(msg, "'abc'");
  msg = error_of([&] { set.load_yaml_string("enc-depth: [1, 2]\n", "cfg.yml"); });
  EXPECT_HAS(msg, "'enc-depth' in cfg.yml:1: expected an integer (32-bit), got a list");
  msg = error_of([&] { set.load_yaml_string("devices:\n  - 0\n  - [1]\n", "cfg.yml"); });
  EXPECT_HAS(msg, "cfg.yml:3");
  EXPECT_HAS(msg, "plain values");
  msg = error_of([&] { set.load_yaml_string("residual-attention: half\n", "cfg.yml"); });
  EXPECT_HAS(msg, "one of: none, sum, mean");
  msg = error_of([&] { set.load_yaml_string("valid-freq: 3 epochs\n", "cfg.yml"); });
  EXPECT_HAS(msg, "'valid-freq' in cfg.yml:1");
  EXPECT_HAS(msg, "e (epochs)");
}

TEST(OptionsYaml, NotANumberAndInfinityAreRefusedInFilesAndOnTheCommandLine) {
  for (const std::string bad : {"nan", "NaN", "inf", "-inf", "infinity", "1e999"}) {
    Fields f;
    OptionSet set = bind(&f);
    std::string msg = error_of(
        [&] { set.load_yaml_string("optimizer-params: [0.9, " + bad + ", 1e-9]\n", "c.yml"); });
    EXPECT_HAS(msg, "'optimizer-params' in c.yml:1");
    EXPECT_HAS(msg, "not nan or inf");
    msg = error_of([&] { parse(set, {"--learn-rate", bad}); });
    EXPECT_HAS(msg, "learn-rate");
    EXPECT_EQ(f.optimizer_params, (std::vector<double>{0.9, 0.98, 1e-9})) << bad;
    EXPECT_EQ(f.learn_rate, 0.0003) << bad;
  }
}

TEST(OptionsYaml, ConfigThatIsADirectoryIsAnError) {
  TempDir dir;
  const std::string file = dir.write("ok.yml", "enc-depth: 2\n");
  const std::string folder = std::filesystem::path(file).parent_path().string();
  Fields f;
  OptionSet set = bind(&f);
  EXPECT_HAS(error_of([&] { parse(set, {"-c", folder}); }), "'" + folder + "' is a directory");
}

TEST(OptionsYaml, NestedDuplicateAndMalformed) {
  Fields f;
  OptionSet set = bind(&f);
  std::string msg = error_of([&] { set.load_yaml_string("model:\n  enc-depth: 6\n", "n.yml"); });
  EXPECT_HAS(msg, "nested key 'model.enc-depth' in n.yml:2");
  EXPECT_HAS(msg, "flat");
  msg = error_of(
      [&] { set.load_yaml_string("enc-depth: 1\nlearn-rate: 1\nenc-depth: 2\n", "d.yml"); });
  EXPECT_HAS(msg, "'enc-depth' appears twice in d.yml (again at d.yml:3)");
  msg = error_of([&] { set.load_yaml_string("enc-depth: 1\ndevices: [0, 1\n", "bad.yml"); });
  EXPECT_HAS(msg, "invalid YAML in bad.yml:");
  EXPECT_HAS(error_of([&] { set.load_yaml_string("- a\n- b\n", "list.yml"); }), "not a list");
  EXPECT_HAS(error_of([&] { set.load_yaml_file("/nonexistent/x.yml"); }),
             "cannot read config file");
}

// Binds a fresh set, loads `yaml`, returns the fields.
Fields load(const std::string& yaml) {
  Fields f;
  OptionSet set = bind(&f);
  set.load_yaml_string(yaml, "dump.yml");
  return f;
}

void expect_same(const Fields& a, const Fields& b) {
  EXPECT_EQ(a.tied, b.tied);
  EXPECT_EQ(a.shuffle, b.shuffle);
  EXPECT_EQ(a.enc_depth, b.enc_depth);
  EXPECT_EQ(a.words, b.words);
  EXPECT_EQ(a.dropout, b.dropout);  // bit-exact: the dump prints shortest round-trip text
  EXPECT_EQ(a.learn_rate, b.learn_rate);
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.rf_mode, b.rf_mode);
  EXPECT_EQ(a.after, b.after);
  EXPECT_EQ(a.valid_freq, b.valid_freq);
  EXPECT_EQ(a.train_sets, b.train_sets);
  EXPECT_EQ(a.devices, b.devices);
  EXPECT_EQ(a.optimizer_params, b.optimizer_params);
  EXPECT_EQ(a.metrics, b.metrics);
}

TEST(OptionsYaml, DumpRoundTripsEveryValue) {
  for (const std::string model : {"", "null", "~", "a: b # c", "[x]", "yes", "'q\"", "-", "x\ny"}) {
    Fields f;
    OptionSet set = bind(&f);
    parse(set, {"--tied-embeddings-all",
                "--shuffle=false",
                "--enc-depth",
                "-7",
                "--mini-batch-words",
                "123456789012",
                "--transformer-dropout",
                "0.1",
                "--learn-rate",
                "0.1",
                "--model=" + model,
                "--residual-attention",
                "none",
                "--after",
                "3e",
                "--valid-freq",
                "1Gt",
                "--train-sets",
                "a b",
                "",
                "#c",
                "--devices=",
                "--optimizer-params",
                "1e-300",
                "0.30000000000000004",
                "--valid-metrics",
                "chrf",
                "bleu"});
    const std::string dump = set.dump_yaml();
    expect_same(f, load(dump));
    // A second dump of the reloaded values is identical text.
    Fields g = load(dump);
    OptionSet set2 = bind(&g);
    EXPECT_EQ(set2.dump_yaml(), dump);
  }
}

TEST(OptionsYaml, DumpHasHelpCommentsAndEveryOption) {
  Fields f;
  OptionSet set = bind(&f);
  std::string out;
  EXPECT_FALSE(parse(set, {"--enc-depth", "4", "--dump-config"}, &out));
  EXPECT_HAS(out, "# ---- Model ----\n");
  EXPECT_HAS(out, "# Number of encoder layers\nenc-depth: 4\n");
  EXPECT_HAS(out,
             "# RealFormer residual attention:\n# none, sum or mean of the "
             "scores\nresidual-attention: mean\n");
  EXPECT_HAS(out, "devices: [0]\n");
  EXPECT_HAS(out, "valid-freq: 10000u\n");
  // Every option but Marian's print-and-exit ones every OptionSet refuses (dumped only when set).
  for (const auto& name : set.names()) {
    if (name != "authors" && name != "cite" && name != "build-info") {
      EXPECT_HAS(out, "\n" + name + ": ");
    }
  }
  EXPECT_HAS(out, "\nlog-level: info\n");
  // minimal: only what was set.
  Fields g;
  OptionSet set2 = bind(&g);
  EXPECT_FALSE(parse(set2, {"--dump-config", "minimal", "--after", "2e"}, &out));
  EXPECT_HAS(out, "after: 2e\n");
  EXPECT_EQ(out.find("enc-depth"), std::string::npos) << out;
  EXPECT_EQ(out.find("Model"), std::string::npos) << out;
  EXPECT_HAS(error_of([&] { parse(set2, {"--dump-config=some"}); }), "full, minimal or expand");
}

}  // namespace
}  // namespace realmt
