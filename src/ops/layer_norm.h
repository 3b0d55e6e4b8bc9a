// Layer normalisation over the last axis (Ba et al. 2016), fused forward and backward.
//   x [..., D] (e.g. [B, T, D]); gamma [D], beta [D]; dtypes f32/f64 on the CPU, all the same.
// Per row r (rows R = x.numel() / D), with the population variance:
//   mean_r = (1/D) sum_j x_rj,  var_r = (1/D) sum_j (x_rj - mean_r)^2,
//   rstd_r = 1 / sqrt(var_r + eps),  y_rj = (x_rj - mean_r) * rstd_r * gamma_j + beta_j.
// The forward pass also returns mean and rstd, [R] in the dtype of x (f32 stats for f32
// inputs), which the backward pass reuses instead of recomputing the row statistics.
// Backward, with xhat = (x - mean) * rstd and g = dy * gamma:
//   dx_rj   = rstd_r * (g_rj - mean_j(g_r) - xhat_rj * mean_j(g_r * xhat_r)),
//   dgamma_j = sum_r dy_rj * xhat_rj,  dbeta_j = sum_r dy_rj.
// Not in place.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct LayerNormResult {
  Tensor y;     // [..., D]
  Tensor mean;  // [R]
  Tensor rstd;  // [R], 1 / sqrt(var + eps)
};

struct LayerNormGrads {
  Tensor dx;      // [..., D]
  Tensor dgamma;  // [D]
  Tensor dbeta;   // [D]
};

// eps > 0 (1e-5 or 1e-6 in the usual Transformer configs).
LayerNormResult layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps);
// dy [..., D] like x; mean and rstd from layer_norm on the same x.
LayerNormGrads layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                   const Tensor& mean, const Tensor& rstd);

// Outputs are allocated by the caller with the shapes above; x is seen as [R, D]. dgamma and
// dbeta arrive zeroed (a kernel may accumulate into them); every other output is written whole.
using LayerNormKernel = void(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps,
                             LayerNormResult& out);
using LayerNormBackwardKernel = void(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                     const Tensor& mean, const Tensor& rstd, LayerNormGrads& grads);
REALMT_KERNEL_SLOT(layer_norm_kernel, LayerNormKernel);
REALMT_KERNEL_SLOT(layer_norm_backward_kernel, LayerNormBackwardKernel);

}  // namespace realmt::ops
