// Differentiable matmul (see ops/matmul.h for shapes).
#pragma once

#include "graph/var.h"
#include "ops/matmul.h"

namespace realmt::graph {

Var matmul(const Var& a, const Var& b, const ops::MatmulOptions& options = {});

}  // namespace realmt::graph
