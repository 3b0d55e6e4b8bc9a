// The command-line features Marian users rely on: implicit values, short options with adjacent
// values, response files, --version, required options, presets (--task), options accepted
// without effect, options refused with a reason, and usage errors as their own type.
#include "options_fixture.h"

namespace realmt {
namespace {

using testing::bind;
using testing::error_of;
using testing::Fields;
using testing::parse;
using testing::TempDir;

struct Decoder {
  double normalize = 0.0;
  std::string alignment;
  int beam = 12;
  std::vector<std::string> models;
  std::string input = "stdin";
  bool quiet = false;
  std::vector<std::string> task;
};

OptionSet bind_decoder(Decoder* d) {
  OptionSet set("realmt-test", "Marian-style decoder options");
  set.add("Search", "normalize", &d->normalize, "Length normalisation")
      .add("Search", "alignment", &d->alignment, "Alignments")
      .add("Search", "beam-size", &d->beam, "Beam size")
      .add("Model", "models", &d->models, "Models")
      .add("Model", "input", &d->input, "Input")
      .add("Model", "quiet", &d->quiet, "Quiet")
      .add("Model", "task", &d->task, "Presets")
      .short_name("normalize", 'n')
      .short_name("beam-size", 'b')
      .short_name("models", 'm')
      .short_name("input", 'i')
      .implicit_value("normalize", "1")
      .implicit_value("alignment", "1");
  return set;
}

TEST(OptionsMarian, ImplicitValuesAloneOrWithAValue) {
  for (const auto& [args, want] : std::vector<std::pair<std::vector<std::string>, double>>{
           {{"-n"}, 1.0},
           {{"-n", "0.6"}, 0.6},
           {{"-n0.6"}, 0.6},
           {{"--normalize"}, 1.0},
           {{"--normalize", "0.6"}, 0.6},
           {{"--normalize=0.3"}, 0.3},
           {{"-n", "-b", "6"}, 1.0},  // an option follows: the implicit value
           {{"-n", "-0.5"}, -0.5},    // a negative number is a value
       }) {
    Decoder d;
    OptionSet set = bind_decoder(&d);
    ASSERT_TRUE(parse(set, args)) << args[0];
    EXPECT_DOUBLE_EQ(d.normalize, want) << args.size();
  }
  Decoder d;
  OptionSet set = bind_decoder(&d);
  parse(set, {"--alignment", "-b", "6", "-m", "a.npz", "b.npz"});
  EXPECT_EQ(d.alignment, "1");
  EXPECT_EQ(d.beam, 6);
  EXPECT_EQ(d.models, (std::vector<std::string>{"a.npz", "b.npz"}));
  Decoder e;
  OptionSet set2 = bind_decoder(&e);
  parse(set2, {"--alignment", "0.2", "-b12", "-mx.npz"});
  EXPECT_EQ(e.alignment, "0.2");
  EXPECT_EQ(e.beam, 12);
  EXPECT_EQ(e.models, std::vector<std::string>{"x.npz"});
}

TEST(OptionsMarian, HelpShowsImplicitValues) {
  Decoder d;
  OptionSet set = bind_decoder(&d);
  std::string out;
  EXPECT_FALSE(parse(set, {"--help"}, &out));
  EXPECT_HAS(out, "-n, --normalize [FLOAT]");
  EXPECT_HAS(out, "(default: 0; alone: 1)");
  EXPECT_HAS(out, "--version");
}

TEST(OptionsMarian, VersionPrintsProgramAndVersion) {
  Fields f;
  OptionSet set = bind(&f);
  std::string out;
  EXPECT_FALSE(parse(set, {"--enc-depth", "3", "--version"}, &out));
  EXPECT_EQ(out.rfind("realmt-test ", 0), 0u) << out;
  EXPECT_GT(out.size(), std::string("realmt-test \n").size());
  EXPECT_EQ(f.enc_depth, 6);
}

TEST(OptionsMarian, ResponseFilesStandInForTheirWords) {
  TempDir dir;
  const std::string file = dir.write("args.txt", "--enc-depth 4\n--model 'my model.npz'\n-d 1 2\n");
  Fields f;
  OptionSet set = bind(&f);
  EXPECT_TRUE(parse(set, {"@" + file, "--learn-rate", "0.1"}));
  EXPECT_EQ(f.enc_depth, 4);
  EXPECT_EQ(f.model, "my model.npz");
  EXPECT_EQ(f.devices, (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(f.learn_rate, 0.1);
  EXPECT_HAS(error_of([&] { parse(set, {"@" + file + ".missing"}); }), "cannot read response file");
}

TEST(OptionsMarian, MistakesAreUsageErrors) {
  Fields f;
  OptionSet set = bind(&f);
  EXPECT_THROW(parse(set, {"--enc-dpeth", "4"}), UsageError);
  EXPECT_THROW(parse(set, {"-q"}), UsageError);
  EXPECT_THROW(parse(set, {"--enc-depth", "four"}), UsageError);
  EXPECT_THROW(parse(set, {"--enc-depth"}), UsageError);
  EXPECT_THROW(parse(set, {"-c", "/nonexistent/realmt.yml"}), UsageError);
  TempDir dir;
  EXPECT_THROW(parse(set, {"-c", dir.write("bad.yml", "enc-depth: [1\n")}), UsageError);
  EXPECT_THROW(parse(set, {"-c", dir.write("unknown.yml", "enc-dpeth: 1\n")}), UsageError);
}

TEST(OptionsMarian, RequiredOptionsMustBeSet) {
  Fields f;
  OptionSet set = bind(&f);
  set.required("train-sets");
  const std::string msg = error_of([&] { parse(set, {"--enc-depth", "3"}); });
  EXPECT_HAS(msg, "'--train-sets' is required");
  EXPECT_TRUE(parse(set, {"-t", "a", "b"}));
  std::string out;
  Fields g;
  OptionSet set2 = bind(&g);
  set2.required("train-sets");
  EXPECT_FALSE(parse(set2, {"--dump-config"}, &out));  // a partial config can still be dumped
}

TEST(OptionsMarian, NoEffectOptionsAreAcceptedAndTypeChecked) {
  Fields f;
  OptionSet set = bind(&f);
  set.add_no_effect("workspace", OptionSet::Kind::kValue, "memory is allocated on demand")
      .add_no_effect("sync-sgd", OptionSet::Kind::kFlag, "realmt always trains synchronously")
      .short_name("workspace", 'w');
  EXPECT_TRUE(parse(set, {"-w", "10000", "--sync-sgd", "--enc-depth", "2"}));
  EXPECT_TRUE(set.was_set("workspace"));
  EXPECT_EQ(set.value_text("workspace"), std::vector<std::string>{"10000"});
  EXPECT_EQ(f.enc_depth, 2);
  std::string out;
  EXPECT_FALSE(parse(set, {"--help"}, &out));
  EXPECT_HAS(out, "-w, --workspace STRING");
  EXPECT_HAS(out, "memory is allocated on demand (accepted for Marian configs; no effect)");
}

TEST(OptionsMarian, UnavailableOptionsNameTheReason) {
  Fields f;
  OptionSet set = bind(&f);
  set.add_unavailable("dim-rnn", OptionSet::Kind::kValue, {"1024"},
                      "RNN models are not implemented")
      .add_unavailable("skip", OptionSet::Kind::kFlag, {}, "RNN models are not implemented");
  EXPECT_TRUE(parse(set, {"--dim-rnn", "1024", "--skip", "false"}));  // Marian's defaults: harmless
  const std::string msg = error_of([&] { parse(set, {"--dim-rnn", "512"}); });
  EXPECT_HAS(msg, "Marian option 'dim-rnn' (on the command line) is not available in realmt");
  EXPECT_HAS(msg, "RNN models are not implemented");
  TempDir dir;
  Fields g;
  OptionSet set2 = bind(&g);
  set2.add_unavailable("skip", OptionSet::Kind::kFlag, {}, "RNN models are not implemented");
  EXPECT_HAS(error_of([&] {
               parse(set2, {"-c", dir.write("s2s.yml", "skip: true\n")});
             }),
             "s2s.yml:1");
  std::string out;
  EXPECT_FALSE(parse(set, {"--help"}, &out));
  EXPECT_EQ(out.find("dim-rnn"), std::string::npos);
  // A misspelling never suggests an unavailable option.
  EXPECT_HAS(error_of([&] { parse(set, {"--dim-rn", "3"}); }), "did you mean");
  EXPECT_EQ(error_of([&] {
              parse(set, {"--dim-rn", "3"});
            }).find("'--dim-rnn'"),
            std::string::npos);
}

TEST(OptionsMarian, PresetsFillWhatTheUserDidNotSet) {
  Fields f;
  std::vector<std::string> task;
  OptionSet set = bind(&f);
  set.add("Training", "task", &task, "Presets")
      .preset(
          "task", "transformer-base",
          {{"enc-depth", "6"}, {"learn-rate", "0.0003"}, {"optimizer-params", "0.9 0.98 1e-09"}})
      .preset("task", "transformer-big", {{"enc-depth", "6"}, {"learn-rate", "0.0002"}});
  TempDir dir;
  const std::string file = dir.write("c.yml", "enc-depth: 2\n");
  f.learn_rate = 1;
  EXPECT_TRUE(parse(set, {"-c", file, "--task", "transformer-big"}));
  EXPECT_EQ(f.enc_depth, 2);  // the file wins over the preset
  EXPECT_DOUBLE_EQ(f.learn_rate, 0.0002);
  EXPECT_EQ(set.origin("learn-rate"), "task transformer-big");
  Fields g;
  std::vector<std::string> task2;
  OptionSet set2 = bind(&g);
  set2.add("Training", "task", &task2, "Presets")
      .preset("task", "transformer-base",
              {{"learn-rate", "0.0003"}, {"optimizer-params", "0.9 0.98 1e-09"}});
  std::string out;
  EXPECT_FALSE(
      parse(set2, {"--task", "transformer-base", "--learn-rate", "0.1", "--dump-config", "expand"},
            &out));
  EXPECT_HAS(out, "optimizer-params: [0.9, 0.98, 1e-09]");
  EXPECT_HAS(out, "learn-rate: 0.1");
  EXPECT_FALSE(parse(set2, {"--task", "transformer-base", "--dump-config", "minimal"}, &out));
  EXPECT_EQ(out.find("optimizer-params"), std::string::npos) << out;
}

// A value ending in '*' matches by prefix (Marian's gemm-type: intgemm8, intgemm8avx2, ...).
TEST(OptionsMarian, PresetsMatchAPrefix) {
  struct Bound {  // an option set with one prefix preset: "--gemm intgemm8*" sets the model
    Fields f;
    std::string gemm = "float32";
    OptionSet set = bind(&f);
    Bound() {
      set.add("Hardware", "gemm", &gemm, "GEMM type")
          .preset("gemm", "intgemm8*", {{"model", "int8.npz"}});
    }
  };
  Bound a;
  EXPECT_TRUE(parse(a.set, {"--gemm", "intgemm8avx512vnni"}));
  EXPECT_EQ(a.f.model, "int8.npz");
  EXPECT_EQ(a.set.origin("model"), "gemm intgemm8avx512vnni");
  Bound b;
  EXPECT_TRUE(parse(b.set, {"--gemm", "intgemm16"}));
  EXPECT_EQ(b.f.model, "model.npz");
}

TEST(OptionsMarian, ChecksRunAfterParsingAndFailAsUsageErrors) {
  Fields f;
  OptionSet set = bind(&f);
  int runs = 0;
  set.on_parsed([&](const OptionSet& s) {
    ++runs;
    REALMT_CHECK(f.enc_depth < 10 || s.was_set("learn-rate"), "enc-depth {} needs a learn-rate",
                 f.enc_depth);
  });
  EXPECT_TRUE(parse(set, {"--enc-depth", "3"}));
  EXPECT_EQ(runs, 1);
  try {
    parse(set, {"--enc-depth", "12"});
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "realmt-test: enc-depth 12 needs a learn-rate");
  }
  std::string out;
  EXPECT_FALSE(parse(set, {"--enc-depth", "12", "--dump-config"}, &out));  // dumping runs no checks
}

}  // namespace
}  // namespace realmt
