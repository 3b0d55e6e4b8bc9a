// Differentiable dropout (see ops/dropout.h). Reserves x.numel() numbers from gen (rounded up
// to whole Philox blocks) and keeps (seed, offset) for the backward pass, which regenerates the
// mask. p == 0 returns x unchanged and draws nothing. Callers apply it in training only.
#pragma once

#include "core/rng.h"
#include "graph/var.h"

namespace realmt::graph {

Var dropout(const Var& x, double p, Generator& gen);

}  // namespace realmt::graph
