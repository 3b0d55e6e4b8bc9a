// Differentiable broadcasting add, sub, mul, div (see ops/elementwise.h).
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);

// Sums g over the axes along which a value of `shape` was broadcast, giving `shape` back.
Tensor sum_to(const Tensor& g, const Shape& shape);

}  // namespace realmt::graph
