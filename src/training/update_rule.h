// What one update does with the gradient its batches summed (the trainer's loop, trainer.cc):
// normalise per target token, clip by the global norm, one optimizer step at the scheduled
// learning rate, then move the exponential average of the weights. One function, so that
// tests/training/update_reference_test.cc checks exactly what training runs against formulas
// written from the papers.
#pragma once

#include <cstdint>

#include "core/arena.h"
#include "graph/parameters.h"
#include "training/lr_schedule.h"
#include "training/optimizer.h"

namespace realmt::training {

struct UpdateRule {
  double clip_norm = 0;  // clip-norm: global norm limit of the per-token gradient (0: off)
  double exponential_smoothing = 0;  // exponential-smoothing: alpha of the weight average (0: off)
};

struct UpdateResult {
  double grad_norm = 0;  // of the per-token gradient, before clipping
  double lr = 0;
};

// Weight of the new parameters in the average at the update after `updates_done` updates,
// Marian's warm-up of exponential smoothing: 1 - min(1 - alpha, (1 + t) / (10 + t)), t =
// updates_done.
double ema_weight(double alpha, int64_t updates_done);

// Applies update number `update` (1-based). params.grads() hold loss_scale x the gradient summed
// over `tokens` (> 0) target tokens and `squares` is their sum of squares; `ema` (may be null)
// is the average, moved after the step. Throws when the gradient norm is not finite.
UpdateResult apply_update(const graph::ParameterSet& params, Optimizer& optimizer,
                          const LrSchedule& schedule, const Arena* ema, const UpdateRule& rule,
                          double squares, int64_t tokens, double loss_scale, int64_t update);

}  // namespace realmt::training
