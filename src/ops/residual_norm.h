// The sub-layer epilogue of a Transformer in one pass: bias, dropout, the (ADMIN-scaled)
// residual and layer normalisation.
//   x, y [..., D] (rows R = numel / D); omega, bias optional [D]; gamma, beta [D]
//   z = x * omega + dropout(y + bias)        (omega absent: 1; bias absent: 0)
//   n = (z - mean_r) * rstd_r * gamma + beta (population variance, rstd = 1/sqrt(var + eps))
// Post-LN takes n as the sub-layer's output (x_i = LN(x_{i-1} * omega_i + f_i(x_{i-1}))); Pre-LN
// takes z as the residual stream and n as the next sub-layer's normalised input. Dropout element
// e of z has stream index offset + e (ops/dropout.h mapping), as a separate dropout op would.
// Outputs z, n, mean [R], rstd [R] (dtype of x).
// Backward, given dn and optionally dz' (z's own consumers, Pre-LN), with xhat = (z - mean) rstd
// and g = dn * gamma:
//   dz = rstd (g - mean_D(g) - xhat mean_D(g xhat)) + dz'
//   dx = dz * omega,  dy = dropout_backward(dz),  domega = sum_r dz * x,  dbias = sum_r dy,
//   dgamma = sum_r dn * xhat,  dbeta = sum_r dn.
// The sums over rows are taken in fixed blocks of rows and added in block order, so they do not
// depend on the thread count. dtypes f32/f64 (CPU), + f16/bf16 (CUDA). Not in place.
#pragma once

#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct ResidualNormOptions {
  double eps = 1e-5;
  double dropout = 0.0;  // on y + bias
  uint64_t seed = 0, offset = 0;
};

struct ResidualNormResult {
  Tensor z, n, mean, rstd;
};

struct ResidualNormGrads {
  Tensor dx, dy;                        // [..., D]
  Tensor domega, dbias, dgamma, dbeta;  // [D]; domega / dbias undefined without omega / bias
};

ResidualNormResult residual_norm(const Tensor& x, const Tensor& y, const Tensor& omega,
                                 const Tensor& bias, const Tensor& gamma, const Tensor& beta,
                                 const ResidualNormOptions& o);
// dz_extra may be undefined (zero).
ResidualNormGrads residual_norm_backward(const Tensor& dn, const Tensor& dz_extra, const Tensor& x,
                                         const ResidualNormResult& fwd, const Tensor& omega,
                                         const Tensor& bias, const Tensor& gamma,
                                         const ResidualNormOptions& o);

// Kernels see [R, D]; outputs allocated by the caller; optional inputs undefined.
using ResidualNormKernel = void(const Tensor& x, const Tensor& y, const Tensor& omega,
                                const Tensor& bias, const Tensor& gamma, const Tensor& beta,
                                const ResidualNormOptions& o, ResidualNormResult& out);
using ResidualNormBackwardKernel = void(const Tensor& dn, const Tensor& dz_extra, const Tensor& x,
                                        const ResidualNormResult& fwd, const Tensor& omega,
                                        const Tensor& gamma, const ResidualNormOptions& o,
                                        ResidualNormGrads& out);
REALMT_KERNEL_SLOT(residual_norm_kernel, ResidualNormKernel);
REALMT_KERNEL_SLOT(residual_norm_backward_kernel, ResidualNormBackwardKernel);

}  // namespace realmt::ops
