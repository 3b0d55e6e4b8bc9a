// Differentiable unary ops (see ops/unary.h).
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var relu(const Var& x);
Var gelu(const Var& x);
Var swish(const Var& x);
Var exp(const Var& x);
Var log(const Var& x);
Var sqrt(const Var& x);
Var scale(const Var& x, double s);

}  // namespace realmt::graph
