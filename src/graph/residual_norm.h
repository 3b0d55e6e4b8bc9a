// Differentiable sub-layer epilogue (ops/residual_norm.h): z = x * omega + dropout(y + bias),
// n = LN(z) * gamma + beta. omega and bias may be undefined. Dropout (rate o.dropout) draws
// x.numel() numbers from gen when gen is set.
//   residual_norm: n only (Post-LN: z is kept inside the node for the backward pass).
//   residual_norm_stream: n and z (Pre-LN: z is the residual stream, n the next sub-layer's
//   input); z is a second output of the same node (graph::record_multi).
#pragma once

#include "core/rng.h"
#include "graph/var.h"
#include "ops/residual_norm.h"

namespace realmt::graph {

struct ResidualNormInputs {
  Var x{}, y{}, omega{}, bias{}, gamma{},
      beta{};  // undefined unless set ({}: a designated initializer may omit them)
};

Var residual_norm(const ResidualNormInputs& in, ops::ResidualNormOptions o, Generator* gen);

struct ResidualStream {
  Var z, n;
};
ResidualStream residual_norm_stream(const ResidualNormInputs& in, ops::ResidualNormOptions o,
                                    Generator* gen);

}  // namespace realmt::graph
