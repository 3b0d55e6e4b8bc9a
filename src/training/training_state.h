// The training progress realmt-train keeps as metadata of <model>.state.safetensors, beside the
// raw weights, moments and smoothed weights: one typed record, each key named once in its
// field table (models/checkpoint_record.h), written by Trainer's save and read back by resume.
// Keys and texts are the state format: states written by earlier versions must keep loading.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/checkpoint_record.h"

namespace realmt::training {

// f16 training's dynamic loss scale (training/mixed_precision.h); absent in f32/bf16 states.
struct LossScaleState {
  double scale = 0;
  int64_t clean_run = 0;  // applied updates since the scale last changed
  int64_t skipped = 0;    // overflowed updates so far

  template <class V>
  void fields(V& v) {
    v("realmt.loss_scale", scale);
    v("realmt.loss_scale_clean", clean_run);
    v("realmt.skipped_updates", skipped);
  }
  bool operator==(const LossScaleState&) const = default;
};

// Where the current epoch began (Marian's Sen. counts from it); states before it was kept lack it.
struct EpochStartState {
  int64_t updates = 0;
  int64_t sentences = 0;

  template <class V>
  void fields(V& v) {
    v("realmt.epoch_start_updates", updates);
    v("realmt.epoch_start_sentences", sentences);
  }
  bool operator==(const EpochStartState&) const = default;
};

struct TrainingState {
  int64_t updates = 0;  // models::kStepKey
  int64_t epoch = 0;    // completed epochs (models::kEpochKey)
  int64_t batches = 0;
  int64_t tokens = 0;
  int64_t sentences = 0;
  int64_t optimizer_steps = 0;  // Adam's bias-correction step count
  // Each validation metric's best value and validations since it improved, by metric name.
  std::map<std::string, double> best;
  std::map<std::string, int64_t> stalled;
  // The first metric's (INFINITY and 0 without validation), as states had it before there was
  // one per metric; still written, read when the per-metric keys are missing.
  double first_best = INFINITY;
  int64_t first_stalled = 0;
  std::optional<EpochStartState> epoch_start;
  std::optional<double> grad_norm_avg;  // Marian's gNorm average; older states lack it
  std::string rng_state;                // rank 0's dropout stream (models::kRngStateKey)
  std::optional<LossScaleState> loss_scale;
  std::string data_position;         // data::BatchGenerator::state (models::kDataPositionKey)
  std::optional<std::string> vocab;  // the vocabulary's fingerprint (models::kVocabKey)
  // Data parallelism: the number of processes (written only when more than one) and the dropout
  // streams of ranks 1 .. ranks-1, by rank number.
  std::optional<int64_t> ranks;
  std::map<std::string, std::string> rank_rng_states;

  template <class V>
  void fields(V& v) {
    v(models::kStepKey, updates);
    v(models::kEpochKey, epoch);
    v("realmt.batches", batches);
    v("realmt.tokens", tokens);
    v("realmt.sentences", sentences);
    v("realmt.optimizer_steps", optimizer_steps);
    v.family("realmt.best.", best);
    v.family("realmt.stalled.", stalled);
    v("realmt.best", first_best);
    v("realmt.stalled", first_stalled);
    v.group(epoch_start);
    v("realmt.grad_norm_avg", grad_norm_avg);
    v(models::kRngStateKey, rng_state);
    v.group(loss_scale);
    v(models::kDataPositionKey, data_position);
    v(models::kVocabKey, vocab);
    v("realmt.ranks", ranks);
    v.family("realmt.rng_state.rank", rank_rng_states);
  }
  bool operator==(const TrainingState&) const = default;
};

// Errors name `path` and the key: a missing required key, a number that is not one, a negative
// count.
inline TrainingState read_training_state(const models::Metadata& metadata,
                                         const std::string& path) {
  return models::read_record<TrainingState>(metadata, path, "training state",
                                            "the file is not a realmt-train state");
}

inline models::Metadata training_state_text(const TrainingState& state) {
  models::Metadata m;
  models::write_record(state, m);
  return m;
}

}  // namespace realmt::training
