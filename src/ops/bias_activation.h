// The feed-forward block's inner epilogue in one pass: bias, activation and dropout.
//   y [..., F], bias [F] (optional) -> h = dropout(act(y + bias)), act relu | gelu | swish |
//   gelu-sigmoid (gelu exact: 0.5 a (1 + erf(a / sqrt 2)), as ops/unary.h). Dropout element e of h
//   has stream index offset + e (ops/dropout.h mapping).
// Backward: da = dropout_backward(dh) * act'(a), a = y + bias; dy = da, dbias = column sums of da
// (rows in fixed blocks, block partials added in block order: independent of the thread count).
// relu needs only h: a kept positive a gives h = a / (1 - p) > 0 and every other element gives
// h = 0 with da = 0, so da = h > 0 ? dh / (1 - p) : 0 (no mask redrawn, y not read); gelu and
// swish recompute a from y and bias and redraw the mask.
// dtypes f32/f64 (CPU), + f16/bf16 (CUDA). Not in place.
#pragma once

#include <cstdint>

#include "common/enum_names.h"
#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

// gelu: x Phi(x) (erf); gelu-sigmoid: x sigmoid(1.702 x), the approximation Marian calls gelu.
enum class Activation { kRelu, kGelu, kSwish, kGeluSigmoid };
constexpr auto enum_names(Activation) {
  return std::to_array<EnumName<Activation>>({{Activation::kRelu, "relu"},
                                              {Activation::kGelu, "gelu"},
                                              {Activation::kSwish, "swish"},
                                              {Activation::kGeluSigmoid, "gelu-sigmoid"}});
}

struct BiasActivationOptions {
  Activation activation = Activation::kRelu;
  double dropout = 0.0;
  uint64_t seed = 0, offset = 0;
};

struct BiasActivationGrads {
  Tensor dy;     // [..., F]
  Tensor dbias;  // [F] (undefined without bias)
};

Tensor bias_activation(const Tensor& y, const Tensor& bias, const BiasActivationOptions& o);
// h: the forward output (read by relu; may be undefined for gelu and swish).
BiasActivationGrads bias_activation_backward(const Tensor& dh, const Tensor& h, const Tensor& y,
                                             const Tensor& bias, const BiasActivationOptions& o);

// Kernels see [rows, F]; dbias (when defined) is written whole.
using BiasActivationKernel = void(const Tensor& y, const Tensor& bias,
                                  const BiasActivationOptions& o, Tensor& h);
using BiasActivationBackwardKernel = void(const Tensor& dh, const Tensor& h, const Tensor& y,
                                          const Tensor& bias, const BiasActivationOptions& o,
                                          BiasActivationGrads& out);
REALMT_KERNEL_SLOT(bias_activation_kernel, BiasActivationKernel);
REALMT_KERNEL_SLOT(bias_activation_backward_kernel, BiasActivationBackwardKernel);

}  // namespace realmt::ops
