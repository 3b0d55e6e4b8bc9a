// realmt-train reads what a Marian user writes: every point of issue 18 that is about options,
// one test each. The command lines are parsed as realmt-train parses them.
#include <gtest/gtest.h>

#include <sstream>

#include <cmath>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "training/lr_schedule.h"
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
  // Two different vocabularies: untied source embeddings, as Marian's default; asked to tie them
  // (also by --task's tied-embeddings-all), refused naming both files.
  TrainOptions two;
  EXPECT_TRUE(parse(two, {"-t", "a.en", "a.fr", "-v", "en.spm", "fr.yml"}));
  EXPECT_TRUE(two.separate_vocabs());
  EXPECT_FALSE(two.model_config.tied_embeddings_all);
  EXPECT_TRUE(o.model_config.tied_embeddings_all);  // one vocabulary: realmt's default stays
  const std::string tied =
      usage_error({"-t", "a.en", "a.fr", "-v", "en.spm", "fr.spm", "--tied-embeddings-all"});
  EXPECT_HAS(tied, "en.spm");
  EXPECT_HAS(tied, "fr.spm");
  EXPECT_HAS(
      usage_error({"-t", "a.en", "a.fr", "-v", "en.spm", "fr.spm", "--task", "transformer-base"}),
      "tied-embeddings-all");
  EXPECT_HAS(usage_error({"-t", "a.en", "a.fr", "-v", "en.spm", "fr.spm", "--tied-embeddings-src"}),
             "tied-embeddings-src");
}

TEST(MarianOptions, SentencePieceCreationOptionsTakeEffect) {
  TrainOptions o;
  EXPECT_TRUE(
      parse(o, with_data({"--sentencepiece-options", "--normalization_rule_tsv=n.tsv",
                          "--sentencepiece-max-lines", "500", "--dim-vocabs", "8000", "4000"})));
  EXPECT_EQ(o.sentencepiece_options, "--normalization_rule_tsv=n.tsv");
  EXPECT_EQ(o.sentencepiece_max_lines, 500);
  EXPECT_EQ(o.created_vocab_sizes, (std::vector<int64_t>{8000, 4000}));
  TrainOptions d;
  EXPECT_TRUE(parse(d, with_data({})));
  EXPECT_EQ(d.sentencepiece_max_lines, 2000000);  // Marian's default
  EXPECT_TRUE(d.created_vocab_sizes.empty());     // not given: Marian's 32000 for a .spm
}

TEST(MarianOptions, RecipeKeysAreAcceptedWithTheirMeaning) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"-w",
                                  "10000",
                                  "--mini-batch-fit",
                                  "--cost-type=ce-mean-words",
                                  "--sync-sgd",
                                  "--transformer-postprocess-emb",
                                  "d",
                                  "--transformer-postprocess",
                                  "dan",
                                  "--transformer-preprocess",
                                  "",
                                  "--valid-translation-output",
                                  "out.txt",
                                  "--valid-script-path",
                                  "bash ./validate.sh",
                                  "--valid-log",
                                  "valid.log",
                                  "--quiet-translation",
                                  "--lr-report",
                                  "--after-epochs",
                                  "3",
                                  "--fp16",
                                  "--keep-best",
                                  "--overwrite",
                                  "--seed",
                                  "1111",
                                  "--valid-metrics",
                                  "ce-mean-words",
                                  "perplexity",
                                  "translation",
                                  "--exponential-smoothing"})));
  EXPECT_EQ(o.model_config.norm, models::Norm::kPost);
  EXPECT_EQ(o.after, (Duration{Duration::Unit::kEpochs, 3}));
  EXPECT_EQ(o.compute_precision(), Precision::kF16);
  EXPECT_TRUE(o.keep_best && o.overwrite && o.lr_report && o.quiet_translation);
  EXPECT_EQ(o.seed, 1111);
  EXPECT_EQ(o.valid_script_path, "bash ./validate.sh");
  EXPECT_DOUBLE_EQ(o.exponential_smoothing, 1e-4);  // Marian's implicit value
}

TEST(MarianOptions, ValidMetricsOfMarian) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--valid-metrics", "cross-entropy", "ce-mean-words", "bleu-detok",
                                  "bleu", "bleu-segmented", "chrf", "perplexity"})));
  EXPECT_EQ(o.valid_metrics.size(), 7u);
  EXPECT_HAS(usage_error(with_data({"--valid-metrics", "translation"})), "valid-script-path");
  EXPECT_HAS(usage_error(with_data({"--valid-metrics", "bleurt"})), "one of: cross-entropy");
}

TEST(MarianOptions, FlagsWithoutValuesAndShortOptions) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, {"-m", "m.npz", "-t", "a.en", "a.fr", "-v", "v.spm", "-d", "cpu", "-l",
                        "0.001", "-n", "-b", "6", "-e", "2", "-w", "5000"}));
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
  EXPECT_TRUE(
      parse(o, with_data({"--transformer-preprocess", "n", "--transformer-postprocess", "da",
                          "--transformer-postprocess-top", "n", "--admin-init", "none"})));
  EXPECT_EQ(o.model_config.norm, models::Norm::kPre);
  EXPECT_HAS(
      usage_error(with_data({"--transformer-preprocess", "n", "--transformer-postprocess", "dan"})),
      "Post-LN (postprocess dan) or Pre-LN");
  EXPECT_HAS(usage_error(with_data({"--transformer-postprocess-emb", "dn"})),
             "layer norm on the embeddings");
}

TEST(MarianOptions, TaskPresetsAreVaswanisTransformer) {
  // Marian 1.12's aliases.cpp, option for option.
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--task", "transformer-big", "--learn-rate", "0.0001"})));
  EXPECT_EQ(o.model_config.dim_emb, 1024);
  EXPECT_EQ(o.model_config.heads, 16);
  EXPECT_EQ(o.model_config.dim_ffn, 4096);
  EXPECT_EQ(o.model_config.norm, models::Norm::kPost);
  EXPECT_EQ(o.model_config.residual_attention_encoder, layers::ResidualMode::kNone);
  EXPECT_EQ(o.model_config.admin_init, models::AdminInit::kNone);
  EXPECT_EQ(o.lr_warmup, Duration::parse("8000u"));
  EXPECT_EQ(o.lr_decay_inv_sqrt, Duration::parse("8000u"));
  EXPECT_DOUBLE_EQ(o.learn_rate, 0.0001);  // given explicitly: wins over the preset
  EXPECT_DOUBLE_EQ(o.clip_norm, 0.0);
  EXPECT_EQ(o.optimizer_params, (std::vector<double>{0.9, 0.998, 1e-9}));
  EXPECT_EQ(o.valid_beam_size, 8);
  EXPECT_EQ(o.valid_mini_batch, 8);
  EXPECT_DOUBLE_EQ(o.valid_normalize, 1.0);
  EXPECT_EQ(o.max_length, 100);
  EXPECT_EQ(o.maxi_batch, 1000);
  TrainOptions b;
  EXPECT_TRUE(parse(b, with_data({"--task", "transformer-base"})));
  EXPECT_EQ(b.model_config.dim_ffn, 2048);
  EXPECT_EQ(b.optimizer_params, (std::vector<double>{0.9, 0.98, 1e-9}));
  EXPECT_EQ(b.valid_mini_batch, 16);
  EXPECT_DOUBLE_EQ(b.learn_rate, 0.0003);
  EXPECT_EQ(b.lr_warmup, Duration::parse("16000u"));
  TrainOptions p;
  EXPECT_TRUE(parse(p, with_data({"--task", "transformer-base-prenorm"})));
  EXPECT_EQ(p.model_config.norm, models::Norm::kPre);
  EXPECT_EQ(p.model_config.dim_emb, 512);
  TrainOptions q;
  EXPECT_TRUE(parse(q, with_data({"--task", "transformer-big-prenorm"})));
  EXPECT_EQ(q.model_config.norm, models::Norm::kPre);
  EXPECT_EQ(q.model_config.heads, 16);
}

TEST(MarianOptions, MarianDumpConfigLoads) {
  // A `marian --task transformer-base --dump-config` file of Marian 1.12 (regression/marian).
  TrainOptions o;
  EXPECT_TRUE(parse(o, {"-c", std::string(REALMT_MARIAN_REGRESSION) + "/marian-1.12-train.yml"}));
  EXPECT_EQ(o.lr_decay_inv_sqrt, Duration::parse("16000u"));
  EXPECT_EQ(o.lr_decay_inv_sqrt_start, -1);
  EXPECT_EQ(o.optimizer_params, (std::vector<double>{0.9, 0.98, 1e-9}));
  EXPECT_EQ(o.model_config.norm, models::Norm::kPost);
  EXPECT_EQ(o.valid_beam_size, 8);
  EXPECT_EQ(o.vocabs.size(), 2u);
  std::string out;
  TrainOptions d;
  EXPECT_FALSE(parse(
      d, {"-c", std::string(REALMT_MARIAN_REGRESSION) + "/marian-1.12-train.yml", "--dump-config"},
      &out));
  EXPECT_HAS(out, "lr-decay-inv-sqrt:");
}

TEST(MarianOptions, DecoderFeedForwardMustBeTheEncoders) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--transformer-dim-ffn", "1024", "--transformer-decoder-dim-ffn",
                                  "1024", "--transformer-decoder-ffn-depth", "2"})));
  EXPECT_HAS(
      usage_error(with_data({"--transformer-decoder-dim-ffn", "4096"})),
      "transformer-decoder-dim-ffn 4096: realmt's decoder has the encoder's feed-forward size");
  EXPECT_HAS(usage_error(with_data({"--transformer-decoder-ffn-depth", "3"})),
             "transformer-decoder-ffn-depth 3");
  EXPECT_HAS(usage_error(with_data({"--transformer-rnn-projection"})),
             "RNN layers are not implemented");
}

TEST(MarianOptions, LrDecayInvSqrtListAndItsStart) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--lr-decay-inv-sqrt", "100", "40"})));
  EXPECT_EQ(o.lr_decay_inv_sqrt, Duration::parse("100u"));
  EXPECT_EQ(o.lr_decay_inv_sqrt_start, 40);
  // Marian's scheduler.h: factor sqrt(D / (t - S + D)) once t > S.
  const LrSchedule s{.peak = 1.0, .inv_sqrt_from = 100, .inv_sqrt_start = 40};
  EXPECT_DOUBLE_EQ(s.at(40), 1.0);
  EXPECT_DOUBLE_EQ(s.at(140), std::sqrt(100.0 / 200.0));
  const LrSchedule plain{.peak = 1.0, .inv_sqrt_from = 100};
  EXPECT_DOUBLE_EQ(plain.at(400), 0.5);
  TrainOptions p;
  EXPECT_TRUE(parse(p, with_data({"--lr-decay-inv-sqrt", "16000"})));
  EXPECT_EQ(p.lr_decay_inv_sqrt_start, -1);
  EXPECT_HAS(usage_error(with_data({"--lr-decay-inv-sqrt", "1", "2", "3"})), "one or two values");
}

TEST(MarianOptions, OptimizerParamsFillAdamsDefaults) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--optimizer-params="})));
  EXPECT_EQ(o.optimizer_params, (std::vector<double>{0.9, 0.999, 1e-8}));
  TrainOptions p;
  EXPECT_TRUE(parse(p, with_data({"--optimizer-params", "0.8"})));
  EXPECT_EQ(p.optimizer_params, (std::vector<double>{0.8, 0.999, 1e-8}));
  EXPECT_HAS(usage_error(with_data({"--optimizer-params", "0.9", "0.98", "1e-9", "0.01"})),
             "weight decay");
}

TEST(MarianOptions, ShuffleCheckpointsEarlyStoppingAndGeneralOptions) {
  TrainOptions o;
  EXPECT_TRUE(parse(
      o, with_data({"--shuffle", "batches", "--overwrite-checkpoint", "--early-stopping-epsilon",
                    "0", "--data-threads", "4", "--log-level", "info", "--authors=false"})));
  EXPECT_FALSE(o.loader_options().shuffle);
  EXPECT_TRUE(o.loader_options().shuffle_batches);
  EXPECT_HAS(usage_error(with_data({"--overwrite-checkpoint=false"})),
             "overwrite-checkpoint false");
  EXPECT_HAS(usage_error(with_data({"--early-stopping-epsilon", "0.1"})), "any improvement resets");
  EXPECT_HAS(usage_error(with_data({"--cite"})), "Marian prints this and exits");
  EXPECT_HAS(usage_error(with_data({"--log-level", "loud"})), "log-level");
  const log::Level before = log::level();
  TrainOptions p;
  EXPECT_TRUE(parse(p, with_data({"--log-level", "critical"})));
  EXPECT_EQ(log::level(), log::Level::kError);
  log::set_level(before);
}

TEST(MarianOptions, NoEffectNotesOnlyForValuesOtherThanMariansDefaults) {
  TrainOptions o;
  testing::internal::CaptureStderr();
  EXPECT_TRUE(parse(o, with_data({"--workspace", "2048", "--tempdir", "/tmp", "--data-threads", "8",
                                  "--mini-batch-fit=false", "--sync-freq", "200u"})));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("has no effect"), std::string::npos) << err;
  TrainOptions p;
  testing::internal::CaptureStderr();
  EXPECT_TRUE(parse(p, with_data({"--workspace", "9500", "--data-threads", "4"})));
  err = testing::internal::GetCapturedStderr();
  EXPECT_HAS(err, "workspace has no effect in realmt");
  EXPECT_HAS(err, "data-threads has no effect in realmt");
}

TEST(MarianOptions, UnavailableFeaturesSayWhy) {
  EXPECT_HAS(usage_error(with_data({"--dim-rnn", "512"})),
             "RNN (s2s, amun, nematus) models are not implemented");
  EXPECT_HAS(usage_error(with_data({"--lr-decay", "0.5"})), "learning-rate decay");
  EXPECT_HAS(usage_error(with_data({"--guided-alignment", "align.txt"})), "guided alignment");
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--lr-decay", "0.0", "--guided-alignment", "none",
                                  "--maxi-batch-sort", "trg"})));
  EXPECT_HAS(usage_error(with_data({"--maxi-batch-sort", "src"})),
             "sorts each maxi-batch by target length");
}

TEST(MarianOptions, AliasesAndTheirConflicts) {
  TrainOptions o;
  EXPECT_TRUE(parse(o, with_data({"--after-batches", "500", "--no-shuffle", "--cost-scaling", "7",
                                  "1000", "2"})));
  EXPECT_EQ(o.after, Duration::parse("500u"));
  EXPECT_EQ(o.shuffle, Shuffle::kNone);
  EXPECT_DOUBLE_EQ(o.loss_scale, 128.0);
  EXPECT_EQ(o.loss_scale_window, 1000);
  EXPECT_HAS(usage_error(with_data({"--after", "10u", "--after-epochs", "2"})), "one criterion");
  EXPECT_HAS(usage_error(with_data({"--num-devices", "2"})), "mpirun");
  EXPECT_HAS(usage_error({"--train-sets", "stdin", "--vocabs", "v.spm"}),
             "cannot train from stdin");
  TrainOptions p;
  EXPECT_TRUE(parse(p, with_data({"--dim-vocabs", "32000", "32000", "--tied-embeddings",
                                  "--precision", "float32", "float32"})));
  EXPECT_EQ(p.compute_precision(), Precision::kF32);
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
  EXPECT_EQ(out.find("workspace"), std::string::npos)
      << "unset no-effect options stay out of full dumps";
}

}  // namespace
}  // namespace realmt::training
