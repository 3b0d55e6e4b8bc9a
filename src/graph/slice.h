// Differentiable slice along one axis (see ops/slice.h).
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var slice(const Var& x, int axis, int64_t begin, int64_t end);

}  // namespace realmt::graph
