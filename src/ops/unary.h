// Unary elementwise ops: y = f(x), same shape and dtype (f32/f64 on the CPU). Not in place.
//   relu(x) = max(x, 0)
//   gelu(x) = x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2))   (exact form, as fairseq and BERT)
//   swish(x) = x * sigmoid(x)                            (SiLU)
//   exp, log, sqrt; scale(x, s) = s * x
// The *_backward ops give dx = dy * f'(x) for the activations whose derivative needs x.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);
Tensor swish(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor scale(const Tensor& x, double s);

Tensor relu_backward(const Tensor& dy, const Tensor& x);
Tensor gelu_backward(const Tensor& dy, const Tensor& x);
Tensor swish_backward(const Tensor& dy, const Tensor& x);

using UnaryKernel = void(const Tensor& x, Tensor& y, double param);
using UnaryBackwardKernel = void(const Tensor& dy, const Tensor& x, Tensor& dx);
REALMT_KERNEL_SLOT(relu_kernel, UnaryKernel);
REALMT_KERNEL_SLOT(gelu_kernel, UnaryKernel);
REALMT_KERNEL_SLOT(swish_kernel, UnaryKernel);
REALMT_KERNEL_SLOT(exp_kernel, UnaryKernel);
REALMT_KERNEL_SLOT(log_kernel, UnaryKernel);
REALMT_KERNEL_SLOT(sqrt_kernel, UnaryKernel);
REALMT_KERNEL_SLOT(scale_kernel, UnaryKernel);
REALMT_KERNEL_SLOT(relu_backward_kernel, UnaryBackwardKernel);
REALMT_KERNEL_SLOT(gelu_backward_kernel, UnaryBackwardKernel);
REALMT_KERNEL_SLOT(swish_backward_kernel, UnaryBackwardKernel);

}  // namespace realmt::ops
