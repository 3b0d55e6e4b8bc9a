// The training loop of realmt-train: token-budget batches from the data loader, forward and
// backward through the Transformer, gradient accumulation (optimizer-delay), clipping, Adam or
// RAdam with the learning-rate schedule, exponential smoothing, display, validation with early
// stopping, checkpoints, exact resume, and a clean stop on SIGTERM: run() saves and returns
// after the update during which common/stop_signal.h's stop request came (a request made
// before run() stops it before its first update).
//
// Files, for model <dir>/<name><ext> (ext: the model path's extension, .safetensors by default;
// Marian's names, so model.npz gives model.iter5000.npz and model.npz.best-bleu.npz; the files
// are safetensors whatever the extension):
//   <name><ext>                        the model (smoothed weights when exponential-smoothing > 0),
//                                      its config in the metadata: enough to translate
//   <name><ext>.decoder.yml            beside every saved model: models, vocabs, beam-size,
//                                      normalize, word-penalty, mini-batch (realmt-translate -c)
//   <name>.state.safetensors           raw weights, Adam moments, smoothed weights (with
//                                      exponential-smoothing), and the progress (updates, epoch,
//                                      data position, dropout RNG, each validation metric's best
//                                      value and stalled count): all that resume reads, in one
//                                      atomic write after the model files
//   <name>.iter<N><ext>                each save when overwrite is false
//   <name><ext>.best-<metric><ext>     with keep-best, one per validation metric
//   <name><ext>.dev<ext>               the model valid-script scores
//   <name>.metrics.jsonl               one JSON object per display and validation
// A run whose state file exists continues exactly where it stopped: the same batches, dropout
// masks and updates as an uninterrupted run, also after a crash between the writes of a save.
// Fault injection (tests only): with REALMT_TEST_KILL_BEFORE_STATE=<update> in the environment
// the process kills itself with SIGKILL in the save of that update, after the model files and
// before the state file, as a crash there would.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/enum_names.h"
#include "training/train_options.h"

namespace realmt::models {
class Transformer;
}

namespace realmt::training {

// Why run() returned: `after` reached, early stopping, time-limit, or a stop signal.
enum class StopReason { kAfter, kEarlyStopping, kTimeLimit, kSignal };
constexpr auto enum_names(StopReason) {
  return std::to_array<EnumName<StopReason>>({{StopReason::kAfter, "after"},
                                              {StopReason::kEarlyStopping, "early-stopping"},
                                              {StopReason::kTimeLimit, "time-limit"},
                                              {StopReason::kSignal, "signal"}});
}

struct TrainResult {
  int64_t updates = 0;
  int64_t epochs = 0;  // completed epochs
  StopReason stop_reason = StopReason::kAfter;
  std::vector<double> losses;  // loss per target token of every update of this run (tests, plots)
};

// What an update observer sees after each update (the lead rank's; realmt.train's progress).
struct UpdateReport {
  int64_t update = 0;              // updates so far, resumed ones included
  int64_t epoch = 0;               // 1-based, as the training line shows it
  double loss = 0.0;               // this update's loss per target token
  int64_t tokens = 0;              // this update's target tokens
  double tokens_per_second = 0.0;  // target tokens a second over this run so far
  double seconds = 0.0;            // since this run's first update started
};
using UpdateObserver = std::function<void(const UpdateReport&)>;

class Trainer {
 public:
  explicit Trainer(TrainOptions options);
  ~Trainer();
  // Called after every applied update, before the stop decision: an observer that requests a
  // stop (common/stop_signal.h) gets the save and return of a signal at that update.
  void on_update(UpdateObserver observer);
  TrainResult run();
  const models::Transformer& model() const;
  // Paths derived from `model`.
  std::string state_path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace realmt::training
