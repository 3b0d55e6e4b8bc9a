// realmt-train's options (Marian names and units where the feature matches), parsed once.
// Marian's options that realmt maps onto its own (after-epochs, fp16, transformer-postprocess,
// cost-scaling, --task, ...), accepts without effect (workspace, sync-sgd, ...) or refuses with a
// reason (RNN and factored-vocabulary options, ...) are declared in train_options_marian.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/duration.h"
#include "common/enum_names.h"
#include "data/batch_generator.h"
#include "models/model_config.h"
#include "training/precision.h"
#include "training/train_log.h"

namespace realmt {
class OptionSet;
}

namespace realmt::training {

// shuffle: each epoch shuffle the pairs and the batches, only the batches of each maxi-batch, or
// nothing.
enum class Shuffle { kData, kBatches, kNone };
constexpr auto enum_names(Shuffle) {
  return std::to_array<EnumName<Shuffle>>(
      {{Shuffle::kData, "data"}, {Shuffle::kBatches, "batches"}, {Shuffle::kNone, "none"}});
}

enum class OptimizerKind { kAdam, kRadam };
constexpr auto enum_names(OptimizerKind) {
  return std::to_array<EnumName<OptimizerKind>>(
      {{OptimizerKind::kAdam, "adam"}, {OptimizerKind::kRadam, "radam"}});
}

// early-stopping-on: which metrics must have stalled early-stopping times.
enum class EarlyStoppingOn { kFirst, kAll, kAny };
constexpr auto enum_names(EarlyStoppingOn) {
  return std::to_array<EnumName<EarlyStoppingOn>>({{EarlyStoppingOn::kFirst, "first"},
                                                   {EarlyStoppingOn::kAll, "all"},
                                                   {EarlyStoppingOn::kAny, "any"}});
}

// sigterm: save a checkpoint and stop after the current update, or die at once.
enum class SigtermAction { kSaveAndExit, kExitImmediately };
constexpr auto enum_names(SigtermAction) {
  return std::to_array<EnumName<SigtermAction>>(
      {{SigtermAction::kSaveAndExit, "save-and-exit"},
       {SigtermAction::kExitImmediately, "exit-immediately"}});
}

// Marian options that realmt turns into its own after parsing (train_options_marian.cc).
struct MarianAliases {
  int64_t after_epochs = 0;   // after-epochs N = after Ne (deprecated in Marian)
  int64_t after_batches = 0;  // after-batches N = after Nu (deprecated in Marian)
  bool no_shuffle = false;    // = shuffle none
  bool fp16 = false;          // = precision f16 with dynamic loss scaling
  std::vector<std::string>
      cost_scaling;        // Marian: power-of-2 window factor ...: initial scale 2^power, window
  std::string preprocess;  // transformer-preprocess "" | d | n | dn: n means Pre-LN
  std::string postprocess = "dan";    // transformer-postprocess dan (Post-LN) | da (Pre-LN)
  std::string postprocess_emb = "d";  // transformer-postprocess-emb: d (dropout) only
  std::string
      postprocess_top;      // transformer-postprocess-top: "" (Post-LN) | n (Pre-LN's final norm)
  bool tsv = false;         // one train-sets file: realmt reads TSV by itself
  int64_t num_devices = 0;  // 0 or 1: one device a process
  std::vector<std::string> task;     // presets: transformer-base, -big, -base-prenorm, -big-prenorm
  int64_t decoder_dim_ffn = 0;       // transformer-decoder-dim-ffn: 0 or transformer-dim-ffn
  int64_t decoder_ffn_depth = 0;     // transformer-decoder-ffn-depth: 0 or 2 (the encoder's)
  bool overwrite_checkpoint = true;  // false: a full training state at each save (not in realmt)
};

struct TrainOptions {
  // Data
  std::vector<std::string> train_sets;  // source and target files, or one TSV file
  std::vector<std::string> vocabs;  // once (both sides) or once a side: .spm, or a Marian word list
                                    // (.yml, .yaml, .json) for pre-segmented text; a missing file
                                    // is created from the train-sets (training/vocab_setup.h)
  std::string sentencepiece_options;  // creating a .spm: further spm_train flags (--key=value ...)
  int64_t sentencepiece_max_lines =
      2000000;  // creating a .spm: lines sampled from the train-sets (0: all)
  std::vector<int64_t>
      created_vocab_sizes;  // creating a vocabulary: dim-vocabs as given (empty: not given)
  std::vector<std::string> valid_sets;      // source and target files for validation
  std::string model = "model.safetensors";  // where checkpoints go (state files beside it)
  std::string pretrained_model;     // initial weights (e.g. from realmt-init); "" = random init
  bool no_reload = false;           // start afresh even when a training state is beside model
  int64_t mini_batch_words = 4000;  // target-token budget a batch, per rank under mpirun (Marian's)
  int64_t mini_batch = 0;           // sentences a batch at most (0: no limit)
  int64_t maxi_batch = 100;         // length-sorting pool, in mini-batches
  int64_t max_length = 100;         // subwords a side; longer pairs are skipped (or cropped)
  bool max_length_crop = false;
  Shuffle shuffle = Shuffle::kData;  // data | batches | none
  bool no_restore_corpus = false;    // resume at the start of an epoch instead of the data position
  // Validation (Marian: valid-*; beam-size, normalize, ... are the validation translator's)
  int64_t valid_mini_batch = 32;    // sentences a validation batch
  int64_t valid_max_length = 1000;  // longer validation sentences are cropped
  int valid_beam_size = 4;          // beam search of the translation metrics (Marian: beam-size)
  double valid_normalize = 0.0;     // length normalisation for it (Marian: normalize)
  double valid_word_penalty = 0.0;  // word penalty for it (Marian: word-penalty)
  double valid_max_length_factor = 3.0;  // output length limit for it (Marian: max-length-factor)
  bool valid_allow_unk = false;          // allow <unk> in its output (Marian: allow-unk)
  std::string valid_script_path;  // command that prints the score (translation, valid-script)
  std::vector<std::string> valid_script_args;
  std::string valid_translation_output;  // where validation translations go ({E} {U} {B} {T})
  std::string valid_log;                 // also append the [valid] lines here
  bool valid_reset_stalled = false;      // resuming: forget the stalled counts
  bool valid_reset_all = false;          // resuming: also forget the best values
  EarlyStoppingOn early_stopping_on = EarlyStoppingOn::kFirst;  // first | all | any
  // Schedule and optimisation
  Duration after;                 // stop after (u/t/e); 0 = never
  double time_limit_minutes = 0;  // also stop (and save) after this much wall time; 0 = none
  Duration disp_freq = Duration::parse("100u");
  int64_t disp_first = 0;         // also display each of the first N updates
  bool disp_label_counts = true;  // ce-sum display: "Cost x * labels @ batch after total"
  bool lr_report = false;         // show L.r. in the training line
  int64_t gradient_norm_average_window =
      100;  // gNorm is an exponential average over this many updates
  CostType cost_type =
      CostType::kCeMeanWords;  // how the cost is displayed; training is always per token
  Duration save_freq = Duration::parse("1000u");
  Duration valid_freq = Duration::parse("1000u");
  std::vector<std::string> valid_metrics{"ce-mean-words"};
  int early_stopping = 10;  // stop after this many validations without improvement (0: off)
  bool keep_best = false;   // also keep the best model per validation metric
  bool overwrite = false;   // false: also keep model.iter<N>.<ext> at each save
  OptimizerKind optimizer = OptimizerKind::kAdam;         // adam | radam
  std::vector<double> optimizer_params{0.9, 0.98, 1e-9};  // beta1, beta2, eps
  double learn_rate = 3e-4;
  Duration lr_warmup;                    // linear warm-up over this many updates (u only)
  Duration lr_decay_inv_sqrt;            // inverse-sqrt decay D from update S on (u only)
  int64_t lr_decay_inv_sqrt_start = -1;  // S in updates (-1: D); Marian's optional second value
  std::vector<std::string> lr_decay_inv_sqrt_args{
      "0"};                            // the option's text: D [S], parsed into the two
  Duration lr_decay_linear;            // linear decay to 0 at this update (RealFormer), u only
  double clip_norm = 0.0;              // global gradient-norm clipping (0: off)
  int optimizer_delay = 1;             // batches accumulated a update
  double exponential_smoothing = 0.0;  // EMA factor of the weights (0: off; alone: 1e-4)
  double label_smoothing = 0.1;
  // Hardware and logging
  std::vector<std::string> devices;  // empty: CPU; "0" or "cuda:0": that GPU
  // Mixed precision (training/precision.h): f32 | tf32 | bf16 | f16; all but f32 need a GPU.
  // Marian's spellings (float32, float16, bfloat16) and lists ("float16 float32": compute, then
  // the optimizer's, which must be f32) are accepted.
  std::vector<Precision> precision{Precision::kF32};
  double loss_scale = 128;           // f16: initial dynamic loss scale
  int64_t loss_scale_window = 2000;  // f16: clean updates in a row before the scale doubles
  int cpu_threads = 0;               // 0: all cores
  double comm_timeout = 600;         // mpirun: seconds a collective may wait for the other ranks
  int64_t seed = 1234;               // 0: a random seed (logged), as Marian
  std::string metrics_file;          // JSON lines; default <model>.metrics.jsonl
  bool quiet = false;                // nothing on stderr (log files still written)
  bool quiet_translation = false;    // no translation lines while validating
  bool quiet_progress = false;       // no progress bar even on a terminal
  SigtermAction sigterm = SigtermAction::kSaveAndExit;  // save-and-exit | exit-immediately
  MarianAliases marian;

  models::ModelConfig model_config;

  // Binds every option; registers the Marian mapping and validate() to run after parsing.
  void declare(OptionSet& options);
  void validate() const;  // after parsing: combinations and ranges, naming the option
  // Whether the two sides have different vocabularies (two different vocabs files).
  bool separate_vocabs() const { return vocabs.size() == 2 && vocabs[0] != vocabs[1]; }
  // Whether pretrained-model is a converted model (its metadata holds id tables): fine-tuning
  // takes its config, special ids and tables (the trainer), not the Model options.
  bool fine_tunes_converted() const;
  // The data loader's options for train-sets (realmt-train and realmt-init read the same order).
  data::BatchGeneratorOptions loader_options() const;
  // The compute precision: precision's first item (the others must be f32).
  Precision compute_precision() const;

 private:
  void declare_marian(OptionSet& options);
  // Turns the Marian aliases into realmt's options and logs where realmt differs.
  void apply_marian(const OptionSet& options);
  void apply_lr_decay_inv_sqrt();
  void apply_optimizer_params();
  void apply_vocabs(const OptionSet& options);
};

}  // namespace realmt::training
