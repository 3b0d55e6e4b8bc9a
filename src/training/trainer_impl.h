// Internals of the Trainer shared by trainer.cc (the loop) and trainer_state.cc (set-up,
// checkpoints, resume, validation). Not part of the public API.
#pragma once

#include <cmath>
#include <memory>
#include <string>

#include "core/rng.h"
#include "data/batch_generator.h"
#include "distributed/communicator.h"
#include "models/checkpoint.h"
#include "models/checkpoint_record.h"
#include "models/transformer.h"
#include "training/lr_schedule.h"
#include "training/mixed_precision.h"
#include "training/optimizer.h"
#include "training/training_state.h"
#include "training/train_log.h"
#include "training/trainer.h"
#include "training/validator.h"

namespace realmt::training {

// Position in the run, in all of Marian's units.
struct Progress {
  int64_t updates = 0, batches = 0, tokens = 0, sentences = 0;
  int64_t epoch = 0;  // completed epochs
};

inline int64_t units(const Progress& p, Duration::Unit u) {
  switch (u) {
    case Duration::Unit::kUpdates: return p.updates;
    case Duration::Unit::kTokens: return p.tokens;
    case Duration::Unit::kEpochs: return p.epoch;
  }
  return 0;
}

// Whether a multiple of d was crossed between two positions.
inline bool due(const Duration& d, const Progress& before, const Progress& after) {
  if (d.off()) return false;
  return units(after, d.unit) / d.value > units(before, d.unit) / d.value;
}

// The model path's extension ("model.npz" -> ".npz"); ".safetensors" for a name without one.
// Marian's names are kept whatever the extension: model.iter<N><ext>, <model>.best-<metric><ext>.
inline std::string model_extension(const std::string& path) {
  const size_t slash = path.rfind('/'), dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot + 1 == path.size() || dot == (slash == std::string::npos ? 0 : slash + 1))
    return ".safetensors";
  return path.substr(dot);
}
inline std::string strip_suffix(const std::string& path) {
  const std::string ext = model_extension(path);
  if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
    return path.substr(0, path.size() - ext.size());
  return path;
}

// A validation metric's history: its best value and the validations since it last improved.
struct MetricTrack {
  double best = INFINITY;  // INFINITY: not validated yet (Validator::better beats it)
  int stalled = 0;
};

// Data parallelism: with several processes on a machine, local rank i takes devices[i % n].
inline Device pick_device(const std::vector<std::string>& devices, int local_rank = 0) {
  if (devices.empty() || devices[0] == "cpu") return Device::cpu();
  return parse_device(devices[static_cast<size_t>(local_rank) % devices.size()]);
}

// Rank 0 (and a single process) keeps the historical stream; each other rank gets its own.
inline uint64_t dropout_seed(int64_t seed, int rank) {
  return static_cast<uint64_t>(seed) * 7919 + 17 +
         static_cast<uint64_t>(rank) * 0x9E3779B97F4A7C15ull;
}

// <model>.decoder.yml's text for the checkpoint at `model_path` (decoder_config.cc).
std::string decoder_config_yaml(const std::string& model_path, const TrainOptions& o);

// One update's sums: optimizer-delay batches of this rank, then (sum_over_ranks) the job's.
struct UpdateSums {
  double loss = 0;           // label-smoothed loss summed over target tokens
  int64_t tokens = 0;        // target tokens (0: nothing to apply)
  bool epoch_ended = false;  // the data ran out during this update
  std::string bad_loss;      // a non-finite loss on this rank: the error, raised on every rank
};

// Why the loop stops after an update (one decision for all ranks); more than one may hold.
struct StopFlags {
  bool early = false, out_of_time = false, signalled = false;
  bool any() const { return early || out_of_time || signalled; }
};

// What one run() keeps between updates: its clock, the training line's window, its result.
struct RunState {
  double t0 = 0;                 // steady-clock seconds when the first update began
  Progress start, last_display;  // where the run began (the ETA's origin); the last training line
  double display_time = 0;       // seconds into the run of the last training line
  double display_loss = 0;       // summed loss since the last training line
  int64_t display_tokens = 0;    // target tokens since the last training line
  int64_t last_tokens = 0;       // target tokens of the last update
  double grad_norm = 0;          // of the last update
  TrainResult result;
};

struct Trainer::Impl {
  TrainOptions o;
  std::string base;  // model path without its extension
  std::string ext;   // the model path's extension (model_extension)
  Device device;
  std::unique_ptr<data::BatchGenerator> data;
  // Fine-tuning a converted model (pretrained-model with id tables): its tables, copied into every
  // model file so that realmt-translate reads them with the same .spm files; empty otherwise
  // (only the tables and the origin are set).
  models::ModelMetadata converted_tables;
  std::unique_ptr<models::Transformer> model;
  std::unique_ptr<Optimizer> optimizer;
  Precision precision = Precision::kF32;
  std::unique_ptr<MixedPrecision> mp;  // compute copy (bf16/f16) and loss scaling (f16)
  std::unique_ptr<Arena> ema;          // smoothed weights
  std::unique_ptr<Validator> validator;
  std::unique_ptr<TrainLog> log;
  std::unique_ptr<distributed::Communicator>
      comm;  // data parallelism: the job's ranks (size 1: alone)
  Generator dropout_gen;
  LrSchedule schedule;
  Progress progress;
  Progress epoch_start;             // where the current epoch began (Marian's Sen. and {B})
  std::vector<MetricTrack> tracks;  // one per valid-metrics entry
  double grad_norm_avg = 0;         // Marian's gNorm: exponential average of the gradient norm
  RunState run;                     // the current run()
  UpdateObserver on_update;         // Trainer::on_update (realmt.train's progress), or empty

  explicit Impl(TrainOptions options);

  std::string state_path() const { return base + ".state.safetensors"; }
  bool reached(const Duration& d) const { return !d.off() && units(progress, d.unit) >= d.value; }
  // Validations the early-stopping-on choice counts as stalled (first, all: the fewest, any: the
  // most).
  int stalled() const;
  // Marian's gNorm average over gradient-norm-average-window updates (alpha 2 / (window + 1)).
  void average_grad_norm(double norm);

  // ---- data parallelism
  bool lead() const { return comm->rank() == 0; }  // rank 0 logs, validates and writes files
  // Rank r > 0 restores its own dropout stream from a state saved by a job of as many ranks;
  // otherwise (another number of ranks) it starts its stream afresh: data order and updates
  // continue exactly, dropout masks differ from the uninterrupted run's.
  void restore_rank_rng(const TrainingState& s);
  // ----

  models::Metadata model_metadata()
      const;  // the model files' metadata (config, updates, vocabulary)
  void
  start();  // resumes from the state file, or initialises (pretrained-model, random, ADMIN profile)
  void resume();
  // The state file's arenas (raw weights, moments, smoothed weights); *ema_in_state false for an
  // older state without the smoothed weights. Returns the metadata.
  models::Metadata load_state(bool* ema_in_state);
  // Counters, validation tracks, gNorm, dropout streams, loss scale and data position.
  void restore_progress(const models::Metadata& m);
  // The progress as the state file records it (rank_rngs: every rank's dropout stream).
  TrainingState training_state(const std::vector<std::string>& rank_rngs) const;
  void save(bool also_iter);
  // Writes the weights used for translation (smoothed when exponential smoothing is on).
  void save_model(const std::string& path);
  std::vector<models::NamedArena> state_arenas() const;  // what the state file holds
  static void kill_here_if_asked(
      int64_t update);  // fault injection between the model and the state
  void write_decoder_config(const std::string& model_path) const;
  void validate_now();

  // ---- the steps of run() (trainer.cc)
  void log_start() const;          // the device, precision, parameters and memory (and the ranks)
  bool stopped_during_start_up();  // a stop asked for before the first update (logged)
  UpdateSums accumulate();         // forward and backward over optimizer-delay batches of this rank
  void sum_over_ranks(
      UpdateSums& sums);  // the job's sums and gradients; throws on a non-finite loss
  // The update (unless f16 overflowed: then skipped, tokens 0): clipping, the optimizer step,
  // smoothing, the compute copy, the counters and the training line's sums.
  void apply(UpdateSums& sums);
  void end_epoch();                     // counts the epoch; Marian's "Seen" and "Starting" lines
  void report(const Progress& before);  // the training line when due, else the progress bar
  DisplayStats display_stats(
      double t) const;  // the training line's numbers, t seconds into the run
  StopFlags decide_stop(const Progress& before);  // validation when due, the time limit, a signal
  StopReason stop_reason(
      const StopFlags& stop);  // the first that holds (logged; a signal is cleared)
  TrainResult finish_run(StopReason reason);
  double elapsed() const;              // seconds since the run's first update
  UpdateReport update_report() const;  // what on_update sees after an applied update
};

}  // namespace realmt::training
