// Differentiable index_select (see ops/index_select.h). The indices are constants.
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var index_select(const Var& x, int axis, const Tensor& indices);

}  // namespace realmt::graph
