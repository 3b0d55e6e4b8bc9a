// Differentiable concat along one axis (see ops/concat.h).
#pragma once

#include <vector>

#include "graph/var.h"

namespace realmt::graph {

Var concat(const std::vector<Var>& xs, int axis);

}  // namespace realmt::graph
