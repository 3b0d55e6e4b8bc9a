// realmt-train's options (Marian names and units where the feature matches), parsed once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/duration.h"
#include "data/batch_generator.h"
#include "models/model_config.h"

namespace realmt {
class OptionSet;
}

namespace realmt::training {

struct TrainOptions {
  // Data
  std::vector<std::string> train_sets;   // source and target files, or one TSV file
  std::vector<std::string> vocabs;       // the joint SentencePiece model (.spm)
  std::vector<std::string> valid_sets;   // source and target files for validation
  std::string model = "model.safetensors";  // where checkpoints go (state files beside it)
  std::string pretrained_model;          // initial weights (e.g. from realmt-init); "" = random init
  int64_t mini_batch_words = 4000;       // target-token budget a batch, per rank under mpirun
  int64_t mini_batch = 0;                // sentences a batch at most (0: no limit)
  int64_t maxi_batch = 100;              // length-sorting pool, in mini-batches
  int64_t max_length = 100;              // subwords a side; longer pairs are skipped (or cropped)
  bool max_length_crop = false;
  std::string shuffle = "data";          // data | none
  int64_t valid_mini_batch = 32;         // sentences a validation batch
  int valid_beam_size = 4;               // beam search for bleu/chrf validation (Marian: beam-size)
  double valid_normalize = 0.6;          // length normalisation for it (Marian: normalize)
  double valid_max_length_factor = 3.0;  // output length limit for it (Marian: max-length-factor)
  // Schedule and optimisation
  Duration after;                        // stop after (u/t/e); 0 = never
  double time_limit_minutes = 0;         // also stop (and save) after this much wall time; 0 = none
  Duration disp_freq = Duration::parse("100u");
  Duration save_freq = Duration::parse("1000u");
  Duration valid_freq = Duration::parse("1000u");
  std::vector<std::string> valid_metrics{"ce-mean-words"};
  int early_stopping = 10;               // stop after this many validations without improvement (0: off)
  bool keep_best = false;                // also keep the best model per first metric
  bool overwrite = false;                // false: also keep model.iter<N>.safetensors at each save
  std::string optimizer = "adam";        // adam | radam
  std::vector<double> optimizer_params{0.9, 0.98, 1e-9};  // beta1, beta2, eps
  double learn_rate = 3e-4;
  Duration lr_warmup;                    // linear warm-up over this many updates (u only)
  Duration lr_decay_inv_sqrt;            // inverse-sqrt decay from this update on (u only)
  Duration lr_decay_linear;              // linear decay to 0 at this update (RealFormer), u only
  double clip_norm = 0.0;                // global gradient-norm clipping (0: off)
  int optimizer_delay = 1;               // batches accumulated a update
  double exponential_smoothing = 0.0;    // EMA factor of the weights (0: off)
  double label_smoothing = 0.1;
  // Hardware and logging
  std::vector<std::string> devices;      // empty: CPU; "0" or "cuda:0": that GPU
  // Mixed precision (training/mixed_precision.h): f32 | tf32 | bf16 | f16; all but f32 need a GPU.
  std::string precision = "f32";
  double loss_scale = 128;               // f16: initial dynamic loss scale
  int64_t loss_scale_window = 2000;      // f16: clean updates in a row before the scale doubles
  int cpu_threads = 0;                   // 0: all cores
  double comm_timeout = 600;             // mpirun: seconds a collective may wait for the other ranks
  int64_t seed = 1234;
  std::string metrics_file;              // JSON lines; default <model>.metrics.jsonl
  std::string log;                       // also write the log here
  bool quiet_progress = false;           // no progress bar even on a terminal

  models::ModelConfig model_config;

  void declare(OptionSet& options);
  void validate() const;  // after parsing: combinations and ranges, naming the option
  // The data loader's options for train-sets (realmt-train and realmt-init read the same order).
  data::BatchGeneratorOptions loader_options() const;
};

}  // namespace realmt::training
