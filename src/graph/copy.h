// Differentiable copy between devices (see ops/copy.h).
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var copy_to(const Var& x, Device device);

}  // namespace realmt::graph
