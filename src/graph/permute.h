// Differentiable permute / transpose (see ops/permute.h) and reshape.
#pragma once

#include <vector>

#include "graph/var.h"

namespace realmt::graph {

Var permute(const Var& x, const std::vector<int>& perm);
Var transpose(const Var& x, int a, int b);
// A view of x with another shape of the same number of elements (-1 infers one extent).
Var reshape(const Var& x, const std::vector<int64_t>& dims);

}  // namespace realmt::graph
