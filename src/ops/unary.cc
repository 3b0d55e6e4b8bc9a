#include "ops/unary.h"

namespace realmt::ops {

namespace {

Tensor unary(const KernelSlot<UnaryKernel>& slot, const Tensor& x, double param = 0.0) {
  check_defined(x, slot.name(), "x");
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() > 0) slot.get(x.device())(x, y, param);
  return y;
}

Tensor unary_backward(const KernelSlot<UnaryBackwardKernel>& slot, const Tensor& dy,
                      const Tensor& x) {
  check_defined(dy, slot.name(), "dy");
  check_defined(x, slot.name(), "x");
  check_same_device(dy, x, slot.name());
  REALMT_CHECK(dy.shape() == x.shape() && dy.dtype() == x.dtype(), "{}: dy {} does not match x {}",
               slot.name(), dy, x);
  Tensor dx = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() > 0) slot.get(x.device())(dy, x, dx);
  return dx;
}

}  // namespace

Tensor relu(const Tensor& x) { return unary(relu_kernel, x); }
Tensor gelu(const Tensor& x) { return unary(gelu_kernel, x); }
Tensor swish(const Tensor& x) { return unary(swish_kernel, x); }
Tensor exp(const Tensor& x) { return unary(exp_kernel, x); }
Tensor log(const Tensor& x) { return unary(log_kernel, x); }
Tensor sqrt(const Tensor& x) { return unary(sqrt_kernel, x); }
Tensor scale(const Tensor& x, double s) { return unary(scale_kernel, x, s); }

Tensor relu_backward(const Tensor& dy, const Tensor& x) {
  return unary_backward(relu_backward_kernel, dy, x);
}
Tensor gelu_backward(const Tensor& dy, const Tensor& x) {
  return unary_backward(gelu_backward_kernel, dy, x);
}
Tensor swish_backward(const Tensor& dy, const Tensor& x) {
  return unary_backward(swish_backward_kernel, dy, x);
}

}  // namespace realmt::ops
