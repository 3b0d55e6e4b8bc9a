// realmt-train reads what a Marian user writes: every point of issue 18 that is about options,
// one test each. The command lines are parsed as realmt-train parses them.
#include <gtest/gtest.h>

#include <sstream>

#include "common/options.h"
#include "core/error.h"
#include "training/train_options.h"

namespace realmt::training {
namespace {

// Parses `args` into `o` as realmt-train does (the data files need not exist: nothing is read).
bool parse(TrainOptions& o, std::vector<std::string> args, std::string* out = nullptr) {
  OptionSet set("realmt-train", "test");
  o.declare(set);
  std::vector<const char*> argv{"realmt-train"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream os;
  const bool go = set.parse(static_cast<int>(argv.size()), argv.data(), os);
  if (out) *out = os.str();
  return go;
}

std::vector<std::string> with_data(std::vector<std::string> args) {
  args.insert(args.begin(), {"--train-sets", "a.en", "a.fr", "--vocabs", "v.spm"});
  return args;
}

std::string usage_error(std::vector<std::string> args) {
  TrainOptions o;
  try {
    parse(o, args);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UsageError";
  return "";
}

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(MarianOptions, VocabsOncePerSide) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, {"-t", "a.en", "a.fr", "--vocabs", "v.spm", "v.spm"}));
  EXPECT_EQ(o.vocabs, (std::vector<std::string>{"v.spm", "v.spm"}));
  EXPECT_HAS(usage_error({"-t", "a.en", "a.fr", "-v", "en.spm", "fr.spm"}), "one joint vocabulary");
}

TEST(MarianOptions, RecipeKeysAreAcceptedWithTheirMeaning) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"-w", "10000", "--mini-batch-fit", "--cost-type=ce-mean-words", "--sync-sgd",
                                  "--transformer-postprocess-emb", "d", "--transformer-postprocess", "dan",
                                  "--transformer-preprocess", "", "--valid-translation-output", "out.txt",
                                  "--valid-script-path", "bash ./validate.sh", "--valid-log", "valid.log",
                                  "--quiet-translation", "--lr-report", "--after-epochs", "3", "--fp16", "--keep-best",
                                  "--overwrite", "--seed", "1111", "--valid-metrics", "ce-mean-words", "perplexity",
                                  "translation", "--exponential-smoothing"})));
  EXPECT_EQ(o.model_config.norm, "post");
  EXPECT_EQ(o.after, (Duration{Duration::Unit::kEpochs, 3}));
  EXPECT_EQ(o.compute_precision(), "f16");
  EXPECT_TRUE(o.keep_best && o.overwrite && o.lr_report && o.quiet_translation);
  EXPECT_EQ(o.seed, 1111);
  EXPECT_EQ(o.valid_script_path, "bash ./validate.sh");
  EXPECT_DOUBLE_EQ(o.exponential_smoothing, 1e-4);  // Marian's implicit value
}

TEST(MarianOptions, ValidMetricsOfMarian) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--valid-metrics", "cross-entropy", "ce-mean-words", "bleu-detok", "bleu",
                                  "bleu-segmented", "chrf", "perplexity"})));
  EXPECT_EQ(o.valid_metrics.size(), 7u);
  EXPECT_HAS(usage_error(with_data({"--valid-metrics", "translation"})), "valid-script-path");
  EXPECT_HAS(usage_error(with_data({"--valid-metrics", "bleurt"})), "one of: cross-entropy");
}

TEST(MarianOptions, FlagsWithoutValuesAndShortOptions) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, {"-m", "m.npz", "-t", "a.en", "a.fr", "-v", "v.spm", "-d", "cpu", "-l", "0.001", "-n",
                        "-b", "6", "-e", "2", "-w", "5000"}));
  EXPECT_EQ(o.model, "m.npz");
  EXPECT_EQ(o.devices, std::vector<std::string>{"cpu"});
  EXPECT_DOUBLE_EQ(o.learn_rate, 0.001);
  EXPECT_DOUBLE_EQ(o.valid_normalize, 1.0);
  EXPECT_EQ(o.valid_beam_size, 6);
  EXPECT_EQ(o.after, (Duration{Duration::Unit::kEpochs, 2}));
  TrainOptions p;
  EXPECT_TRUE(parse(p, with_data({"--normalize", "0.6", "--exponential-smoothing", "0.0005"})));
  EXPECT_DOUBLE_EQ(p.valid_normalize, 0.6);
  EXPECT_DOUBLE_EQ(p.exponential_smoothing, 0.0005);
}

TEST(MarianOptions, NormalizeDefaultsToZeroAsInMarian) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({})));
  EXPECT_DOUBLE_EQ(o.valid_normalize, 0.0);  // as realmt-translate's and realmt-server's default
}

TEST(MarianOptions, PreAndPostLayerNormStrings) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--transformer-preprocess", "n", "--transformer-postprocess", "da",
                                  "--transformer-postprocess-top", "n", "--admin-init", "none"})));
  EXPECT_EQ(o.model_config.norm, "pre");
  EXPECT_HAS(usage_error(with_data({"--transformer-preprocess", "n", "--transformer-postprocess", "dan"})),
             "Post-LN (postprocess dan) or Pre-LN");
  EXPECT_HAS(usage_error(with_data({"--transformer-postprocess-emb", "dn"})), "layer norm on the embeddings");
}

TEST(MarianOptions, TaskPresetsAreVaswanisTransformer) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--task", "transformer-big", "--learn-rate", "0.0001"})));
  EXPECT_EQ(o.model_config.dim_emb, 1024);
  EXPECT_EQ(o.model_config.heads, 16);
  EXPECT_EQ(o.model_config.residual_attention_encoder, "none");
  EXPECT_EQ(o.model_config.admin_init, "none");
  EXPECT_EQ(o.lr_warmup, Duration::parse("8000u"));
  EXPECT_DOUBLE_EQ(o.learn_rate, 0.0001);  // given explicitly: wins over the preset
  EXPECT_DOUBLE_EQ(o.clip_norm, 5.0);
}

TEST(MarianOptions, UnavailableFeaturesSayWhy) {
  EXPECT_HAS(usage_error(with_data({"--dim-rnn", "512"})), "RNN (s2s, amun, nematus) models are not implemented");
  EXPECT_HAS(usage_error(with_data({"--lr-decay", "0.5"})), "learning-rate decay");
  EXPECT_HAS(usage_error(with_data({"--guided-alignment", "align.txt"})), "guided alignment");
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--lr-decay", "0.0", "--guided-alignment", "none", "--maxi-batch-sort", "trg"})));
  EXPECT_HAS(usage_error(with_data({"--maxi-batch-sort", "src"})), "sorts each maxi-batch by target length");
}

TEST(MarianOptions, AliasesAndTheirConflicts) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--after-batches", "500", "--no-shuffle", "--cost-scaling", "7", "1000", "2"})));
  EXPECT_EQ(o.after, Duration::parse("500u"));
  EXPECT_EQ(o.shuffle, "none");
  EXPECT_DOUBLE_EQ(o.loss_scale, 128.0);
  EXPECT_EQ(o.loss_scale_window, 1000);
  EXPECT_HAS(usage_error(with_data({"--after", "10u", "--after-epochs", "2"})), "one criterion");
  EXPECT_HAS(usage_error(with_data({"--num-devices", "2"})), "mpirun");
  EXPECT_HAS(usage_error({"--train-sets", "stdin", "--vocabs", "v.spm"}), "cannot train from stdin");
  TrainOptions p;
  EXPECT_TRUE(parse(p, with_data({"--dim-vocabs", "32000", "32000", "--tied-embeddings", "--precision", "float32",
                                  "float32"})));
  EXPECT_EQ(p.compute_precision(), "f32");
}

TEST(MarianOptions, SeedZeroIsRandom) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--seed", "0"})));
  EXPECT_GT(o.seed, 0);
}

TEST(MarianOptions, NoEffectOptionsShowInHelpAndDumps) {
  TrainOptions o;
  std::string out;
  EXPECT_FALSE(parse(o, with_data({"--help"}), &out));
  EXPECT_HAS(out, "-w, --workspace STRING");
  EXPECT_HAS(out, "memory is allocated on demand");
  EXPECT_EQ(out.find("dim-rnn"), std::string::npos);  // unavailable options are not listed
  TrainOptions p;
  EXPECT_FALSE(parse(p, with_data({"-w", "9000", "--dump-config", "minimal"}), &out));
  EXPECT_HAS(out, "workspace: 9000");
  TrainOptions q;
  EXPECT_FALSE(parse(q, with_data({"--dump-config"}), &out));
  EXPECT_EQ(out.find("workspace"), std::string::npos) << "unset no-effect options stay out of full dumps";
}

}  // namespace
}  // namespace realmt::training
