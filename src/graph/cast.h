// Differentiable cast between floating dtypes (see ops/cast.h). Casting to or from an integer
// dtype is allowed only for values that need no gradient.
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var cast(const Var& x, DType dtype);

}  // namespace realmt::graph
