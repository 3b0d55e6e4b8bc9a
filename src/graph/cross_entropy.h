// Differentiable label-smoothed cross-entropy that ignores padding (see ops/cross_entropy.h).
//   logits [N, V] -> per-row loss [N] (0 at rows whose target is the ignore_index); callers
//   sum it or divide by the number of non-padding targets. Targets are constants.
#pragma once

#include "graph/var.h"
#include "ops/cross_entropy.h"

namespace realmt::graph {

Var cross_entropy(const Var& logits, const Tensor& targets,
                  const ops::CrossEntropyOptions& options = {});

}  // namespace realmt::graph
