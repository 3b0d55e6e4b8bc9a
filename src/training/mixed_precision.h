// Mixed-precision training: bf16 compute with f32 master weights, and f16 with
// dynamic loss scaling.
//
// The master model's parameter set (f32 values and gradients; the optimizer's moments beside
// them) is what the optimizer updates, exponential smoothing averages, validation runs and
// checkpoints store. For bf16/f16 a second Transformer of the same config holds the weights in
// the compute dtype on the same device; forward and backward run on it. After each backward its
// gradients are cast into the master gradients (added from the second batch of an update on,
// so optimizer-delay accumulates in f32) and its own are zeroed; after each optimizer step (and
// after initialisation or loading) refresh() casts the master weights into it. The casts go
// parameter by parameter: arenas of different dtypes are laid out differently (64-byte slots).
//
// f16 (Micikevicius et al. 2018; the fairseq/apex scheme): the summed loss is multiplied by the
// loss scale S before backward, so small gradients survive f16's range; the master gradients
// are then S x the true ones and the optimizer folds 1/S into its grad_scale. An update whose
// gradients hold an inf or NaN is skipped (no optimizer step, nothing counted as an update) and
// S halves; after `window` clean updates in a row S doubles.
#pragma once

#include <memory>
#include <string>

#include "core/dtype.h"
#include "graph/var.h"
#include "models/transformer.h"
#include "training/precision.h"

namespace realmt::training {

struct LossScaleOptions {
  double initial = 128;     // fairseq's fp16-init-scale default (2^7)
  int64_t window = 2000;    // clean updates in a row before the scale doubles (ADMIN recipe: 256)
  double min = 1.0 / 1024;  // falling below this means the model itself diverged: an error
};

// Dynamic loss scale. Pure bookkeeping: the caller checks the gradients.
class LossScaler {
 public:
  explicit LossScaler(const LossScaleOptions& options);
  double scale() const { return scale_; }
  // Records one update's outcome; returns whether it may be applied (its gradients are finite).
  // On overflow the scale halves (throws when it falls below the minimum); after `window`
  // applied updates in a row it doubles.
  bool update(bool finite);
  int64_t skipped() const { return skipped_; }  // overflowed updates so far
  int64_t clean_run() const { return clean_; }  // applied updates since the last change
  // For exact resume.
  void restore(double scale, int64_t clean_run, int64_t skipped);

 private:
  LossScaleOptions options_;
  double scale_;
  int64_t clean_ = 0, skipped_ = 0;
};

struct MixedPrecisionOptions {
  DType compute = DType::kF32;  // equal to the master's dtype: no compute copy
  bool loss_scaling = false;    // dynamic loss scaling (f16)
  LossScaleOptions loss_scale{};
};

class MixedPrecision {
 public:
  // `master` must be allocated; it is held by reference and must outlive this object.
  MixedPrecision(models::Transformer& master, const MixedPrecisionOptions& options);
  ~MixedPrecision();

  // The model forward and backward run on: the compute copy, or the master itself.
  const models::Transformer& compute_model() const;
  bool has_compute_copy() const { return compute_ != nullptr; }
  // Master weights -> compute copy (no-op without a copy).
  void refresh();
  // Back-propagates a summed loss times loss_scale() and leaves the gradients in the master's
  // gradient arena: `first` (first batch of an update) overwrites them, later batches add.
  // Without a compute copy this is graph::backward (master gradients accumulate in place, so
  // the caller zeroes them at the start of an update as usual).
  void backward(const graph::Var& loss, bool first);
  // After the last backward of an update, with the master gradients' sum of squares: whether
  // the update may be applied. Without loss scaling: always true. With it: false on inf/NaN
  // (the scale halves); the scale used for this update must be read before this call.
  bool finish(double grad_sum_squares);
  double loss_scale() const { return scaler_ ? scaler_->scale() : 1.0; }
  LossScaler* scaler() { return scaler_.get(); }
  const LossScaler* scaler() const { return scaler_.get(); }

 private:
  models::Transformer& master_;
  std::unique_ptr<models::Transformer> compute_;
  std::unique_ptr<LossScaler> scaler_;
};

}  // namespace realmt::training
