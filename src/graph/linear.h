// Differentiable affine map y = x W + b, x [..., Din], W [Din, Dout], b [Dout] (optional).
// The bias is written into y first and the GEMM adds onto it (beta = 1), so the bias costs no
// pass of its own. Backward (rows of x flattened to N = x.numel() / Din):
//   dx = dy W^T,  dW += x^T dy,  db += column sums of dy.
// dW and dx are accumulated by the GEMM itself (beta = 1) into gradient buffers that already
// exist (a parameter's slot of the gradient arena, a residual input's gradient), so no
// temporary gradient and no separate add pass.
#pragma once

#include "graph/var.h"

namespace realmt::graph {

Var linear(const Var& x, const Var& w, const Var& b);

}  // namespace realmt::graph
