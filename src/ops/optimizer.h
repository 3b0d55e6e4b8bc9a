// Optimizer kernels over flat buffers (the parameter, gradient and moment arenas):
//   adam_update: g' = grad_scale * g;  m = b1 m + (1 - b1) g';  v = b2 v + (1 - b2) g'^2;
//                p -= step_size * m / (sqrt(v / bias_correction2) + eps)   (use_denominator)
//                p -= step_size * m                                       (RAdam's warm-up
//                                                                          steps, no denominator)
//                The host folds lr, bias_correction1 = 1 - b1^t and RAdam's rectification
//                into step_size.
//   ema_update:  e += alpha * (p - e)           (exponential smoothing of weights)
//   sum_squares: sum of x^2 (accumulated in double) -> gradient norms
// All tensors: same shape, f32 (f64 for tests); updated in place.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct AdamStep {
  double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;
  double grad_scale = 1.0;        // applied to g before use (token normalisation, clipping)
  double step_size = 1e-3;        // lr / (1 - b1^t) (times RAdam's rectification)
  double bias_correction2 = 1.0;  // 1 - b2^t
  bool use_denominator = true;    // false: RAdam's un-rectified early steps
};

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& v,
                 const AdamStep& step);
void ema_update(const Tensor& ema, const Tensor& param, double alpha);
double sum_squares(const Tensor& x);

REALMT_KERNEL_SLOT(adam_update_kernel, void(const Tensor& p, const Tensor& g, const Tensor& m,
                                            const Tensor& v, const AdamStep& step));
REALMT_KERNEL_SLOT(ema_update_kernel, void(const Tensor& ema, const Tensor& p, double alpha));
REALMT_KERNEL_SLOT(sum_squares_kernel, double(const Tensor& x));

}  // namespace realmt::ops
