// Differentiable layer normalisation over the last axis (see ops/layer_norm.h):
//   x [..., D], gamma [D], beta [D] -> y [..., D]; gradients reach all three.
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var layer_norm(const Var& x, const Var& gamma, const Var& beta, double eps);

}  // namespace realmt::graph
