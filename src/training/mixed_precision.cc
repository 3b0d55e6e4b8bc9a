#include "training/mixed_precision.h"

#include <cmath>

#include "core/error.h"
#include "graph/elementwise.h"
#include "ops/cast.h"
#include "ops/elementwise.h"

namespace realmt::training {

DType compute_dtype(Precision p) {
  switch (p) {
    case Precision::kBf16: return DType::kBF16;
    case Precision::kF16: return DType::kF16;
    default: return DType::kF32;
  }
}

LossScaler::LossScaler(const LossScaleOptions& options)
    : options_(options), scale_(options.initial) {
  REALMT_CHECK(options.initial > 0 && std::isfinite(options.initial),
               "loss-scale must be positive, got {}", options.initial);
  REALMT_CHECK(options.window >= 1, "loss-scale-window must be >= 1, got {}", options.window);
}

bool LossScaler::update(bool finite) {
  if (!finite) {
    ++skipped_;
    clean_ = 0;
    scale_ /= 2;
    REALMT_CHECK(scale_ >= options_.min,
                 "f16 loss scale fell below {} after {} overflowed updates: the gradients are not "
                 "finite at any "
                 "scale, so the model diverged; lower learn-rate, add lr-warmup or clip-norm, or "
                 "use precision bf16",
                 options_.min, skipped_);
    return false;
  }
  if (++clean_ >= options_.window) {
    scale_ *= 2;
    clean_ = 0;
  }
  return true;
}

void LossScaler::restore(double scale, int64_t clean_run, int64_t skipped) {
  REALMT_CHECK(scale > 0 && std::isfinite(scale), "training state: bad loss scale {}", scale);
  scale_ = scale;
  clean_ = clean_run;
  skipped_ = skipped;
}

MixedPrecision::MixedPrecision(models::Transformer& master, const MixedPrecisionOptions& options)
    : master_(master) {
  const Arena& values = master.params().values();
  REALMT_CHECK(is_floating(options.compute), "mixed precision: compute dtype {} is not floating",
               options.compute);
  if (options.compute != values.dtype()) {
    compute_ = std::make_unique<models::Transformer>(master.config());
    compute_->allocate(values.device(), options.compute);
    REALMT_ASSERT(compute_->params().names() == master.params().names());
    refresh();
  }
  if (options.loss_scaling) scaler_ = std::make_unique<LossScaler>(options.loss_scale);
}

MixedPrecision::~MixedPrecision() = default;

const models::Transformer& MixedPrecision::compute_model() const {
  return compute_ ? *compute_ : master_;
}

namespace {

// dst = cast(src) into an existing tensor of another dtype (no temporary).
void cast_into(const Tensor& src, const Tensor& dst) {
  if (src.numel() == 0) return;
  Tensor out = dst;  // a handle on the same storage
  ops::cast_kernel.get(src.device())(src, out);
}

}  // namespace

void MixedPrecision::refresh() {
  if (!compute_) return;
  const Arena& from = master_.params().values();
  const Arena& to = compute_->params().values();
  for (int i = 0; i < from.size(); ++i) cast_into(from[i], to[i]);
}

void MixedPrecision::backward(const graph::Var& loss, bool first) {
  graph::Var scaled = loss;
  if (scaler_) {
    // Scales are powers of two: the product is exact unless it overflows (then the gradients
    // are inf and the update is skipped).
    scaled = graph::mul(loss, graph::Var(Tensor::full(loss.shape(), scaler_->scale(), loss.dtype(),
                                                      loss.device())));
  }
  graph::backward(scaled);
  if (!compute_) return;
  const Arena& from = compute_->params().grads();
  const Arena& to = master_.params().grads();
  for (int i = 0; i < from.size(); ++i) {
    if (first) {
      cast_into(from[i], to[i]);
    } else {
      Tensor dst = to[i];
      ops::add_(dst, ops::cast(from[i], to.dtype()));
    }
  }
  compute_->params().zero_grad();
}

bool MixedPrecision::finish(double grad_sum_squares) {
  if (!scaler_) return true;
  return scaler_->update(std::isfinite(grad_sum_squares));
}

}  // namespace realmt::training
