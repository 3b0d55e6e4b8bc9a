#include "ops/dropout.h"

namespace realmt::ops {

namespace {

Tensor apply(const Tensor& x, const DropoutOptions& o, const char* op, const char* arg) {
  check_defined(x, op, arg);
  // Written to be false for NaN too.
  REALMT_CHECK(o.p >= 0.0 && o.p < 1.0, "{}: p = {} is outside [0, 1)", op, o.p);
  if (o.p == 0.0) return x;
  REALMT_CHECK(is_floating(x.dtype()), "{}: {} is {}, not a floating type", op, arg, x.dtype());
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() > 0) dropout_kernel.get(x.device())(x, o, y);
  return y;
}

}  // namespace

Tensor dropout(const Tensor& x, const DropoutOptions& o) { return apply(x, o, "dropout", "x"); }

// The same mask and scale as the forward pass: dy / dx = mask * scale elementwise.
Tensor dropout_backward(const Tensor& dy, const DropoutOptions& o) {
  return apply(dy, o, "dropout_backward", "dy");
}

}  // namespace realmt::ops
