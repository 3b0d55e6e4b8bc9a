// Differentiable reductions over one axis (see ops/reduce.h).
#pragma once

#include "graph/var.h"
#include "ops/reduce.h"

namespace realmt::graph {

Var sum(const Var& x, int axis, const ops::ReduceOptions& options = {});
Var mean(const Var& x, int axis, const ops::ReduceOptions& options = {});
// The gradient goes to the first maximum of each slice.
Var max(const Var& x, int axis, const ops::ReduceOptions& options = {});
Var sum_all(const Var& x);

}  // namespace realmt::graph
