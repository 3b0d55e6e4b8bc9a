// Differentiable output projection + label-smoothed cross-entropy (ops/linear_cross_entropy.h).
//   h [N, D], w [V, D] (logits = h w^T + bias), bias optional [V], targets i32 [N] (constants).
// loss: the sum of the per-row losses (a scalar, f32 for f32/f16/bf16 inputs); per_row: the
// losses themselves (a plain tensor, 0 at ignored rows). The gradients are made in the forward
// pass, chunk by chunk (no [N, V] tensor), when gradients are enabled and h, w or bias need one;
// the backward rule scales them by the upstream gradient.
#pragma once

#include "graph/var.h"
#include "ops/linear_cross_entropy.h"

namespace realmt::graph {

struct LinearCrossEntropyOutput {
  Var loss;
  Tensor per_row;
};

LinearCrossEntropyOutput linear_cross_entropy(const Var& h, const Var& w, const Var& bias,
                                              const Tensor& targets,
                                              ops::LinearCrossEntropyOptions o);

}  // namespace realmt::graph
