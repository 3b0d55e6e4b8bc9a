#include "ops/softmax.h"

namespace realmt::ops {

RowBroadcast plan_row_broadcast(const Shape& x, const Shape& mask) {
  RowBroadcast rb;
  rb.rank = x.rank() - 1;
  rb.cols = x[-1];
  rb.rows = x.outer(-1);
  if (mask.rank() == 0) return rb;
  REALMT_CHECK(mask.rank() <= x.rank() && mask[-1] == x[-1],
               "mask {} does not broadcast to scores {} (last axes must be equal)", mask, x);
  int64_t stride = 1;  // in mask rows
  for (int i = rb.rank - 1; i >= 0; --i) {
    rb.dims[i] = x[i];
    const int j = mask.rank() - x.rank() + i;
    const int64_t d = j >= 0 ? mask[j] : 1;
    REALMT_CHECK(d == x[i] || d == 1, "mask {} does not broadcast to scores {} (axis {})", mask, x,
                 i);
    rb.strides[i] = d == 1 ? 0 : stride;
    stride *= d;
  }
  return rb;
}

namespace {

Tensor forward(const KernelSlot<SoftmaxKernel>& slot, const Tensor& x, const Tensor& mask) {
  check_defined(x, slot.name(), "x");
  REALMT_CHECK(x.rank() >= 1, "{}: x must have at least one axis", slot.name());
  RowBroadcast rb = plan_row_broadcast(x.shape(), mask.defined() ? mask.shape() : Shape());
  if (mask.defined()) {
    check_same_device(x, mask, slot.name());
    REALMT_CHECK(mask.dtype() == x.dtype(), "{}: mask is {}, scores are {}", slot.name(),
                 mask.dtype(), x.dtype());
  } else {
    for (int i = 0; i < rb.rank; ++i) rb.dims[i] = x.dim(i);
  }
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (x.numel() > 0) slot.get(x.device())(x, mask, rb, y);
  return y;
}

Tensor backward(const KernelSlot<SoftmaxBackwardKernel>& slot, const Tensor& dy, const Tensor& y) {
  check_defined(dy, slot.name(), "dy");
  check_defined(y, slot.name(), "y");
  check_same_device(dy, y, slot.name());
  REALMT_CHECK(dy.shape() == y.shape() && dy.dtype() == y.dtype(), "{}: dy {} does not match y {}",
               slot.name(), dy, y);
  Tensor dx = Tensor::empty(y.shape(), y.dtype(), y.device());
  if (y.numel() > 0) slot.get(y.device())(dy, y, dx);
  return dx;
}

}  // namespace

Tensor softmax(const Tensor& x, const Tensor& mask) { return forward(softmax_kernel, x, mask); }
Tensor log_softmax(const Tensor& x, const Tensor& mask) {
  return forward(log_softmax_kernel, x, mask);
}
Tensor softmax_backward(const Tensor& dy, const Tensor& y) {
  return backward(softmax_backward_kernel, dy, y);
}
Tensor log_softmax_backward(const Tensor& dy, const Tensor& y) {
  return backward(log_softmax_backward_kernel, dy, y);
}

}  // namespace realmt::ops
