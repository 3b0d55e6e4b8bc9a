// Differentiable masked_fill (see ops/masked_fill.h). The mask is a constant.
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var masked_fill(const Var& x, const Tensor& mask, double value);

}  // namespace realmt::graph
