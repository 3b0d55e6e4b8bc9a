// Differentiable embedding lookup (see ops/embedding.h): weight [V, D], ids i32 [...] ->
// [..., D]. The ids are constants; the gradient reaches the weight.
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var embedding(const Var& weight, const Tensor& ids);

}  // namespace realmt::graph
