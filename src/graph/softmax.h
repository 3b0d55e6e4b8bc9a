// Differentiable softmax / log_softmax over the last axis with an additive mask (see
// ops/softmax.h). The mask is a constant: no gradient flows into it.
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var softmax(const Var& x, const Tensor& mask = {});
Var log_softmax(const Var& x, const Tensor& mask = {});

}  // namespace realmt::graph
