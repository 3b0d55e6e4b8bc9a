#include "training/update_rule.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "ops/optimizer.h"

namespace realmt::training {

double ema_weight(double alpha, int64_t updates_done) {
  // Early updates move the average quickly instead of leaving it near the random start.
  // Written as Marian's decay min(1 - alpha, (1 + t) / (10 + t)) of the old average.
  const double t = static_cast<double>(updates_done);
  return 1.0 - std::min(1.0 - alpha, (1.0 + t) / (10.0 + t));
}

UpdateResult apply_update(const graph::ParameterSet& params, Optimizer& optimizer,
                          const LrSchedule& schedule, const Arena* ema, const UpdateRule& rule,
                          double squares, int64_t tokens, double loss_scale, int64_t update) {
  REALMT_ASSERT(tokens > 0 && loss_scale > 0, "apply_update without tokens");
  UpdateResult r;
  // The optimizer multiplies each gradient by grad_scale: 1 / (tokens x loss scale) gives the
  // per-token gradient, and clipping scales that by clip / norm.
  const double per_token = 1.0 / (static_cast<double>(tokens) * loss_scale);
  r.grad_norm = std::sqrt(squares) * per_token;
  REALMT_CHECK(std::isfinite(r.grad_norm),
               "gradient norm is {} at update {}; lower learn-rate or set clip-norm", r.grad_norm,
               update);
  double grad_scale = per_token;
  if (rule.clip_norm > 0 && r.grad_norm > rule.clip_norm)
    grad_scale *= rule.clip_norm / r.grad_norm;
  r.lr = schedule.at(update);
  optimizer.step(r.lr, grad_scale);
  if (ema != nullptr)
    ops::ema_update(ema->flat(), params.values().flat(),
                    ema_weight(rule.exponential_smoothing, update - 1));
  return r;
}

}  // namespace realmt::training
