#include "ops/index_select.h"

namespace realmt::ops {

namespace {

void check_indices(const Tensor& indices, int64_t n, int axis, const Shape& x_shape,
                   const char* op) {
  check_defined(indices, op, "indices");
  check_dtype(indices, DType::kI32, op, "indices");
  REALMT_CHECK(indices.rank() == 1, "{}: indices must be [K], got {}", op, indices.shape());
  const Tensor h = indices.to(Device::cpu());
  const int32_t* p = h.data<int32_t>();
  for (int64_t j = 0; j < h.numel(); ++j)
    REALMT_CHECK(p[j] >= 0 && p[j] < n,
                 "{}: indices[{}] = {} is out of range [0, {}) for axis {} of x {}", op, j, p[j], n,
                 axis, x_shape);
}

}  // namespace

Tensor index_select(const Tensor& x, int axis, const Tensor& indices) {
  check_defined(x, "index_select", "x");
  const int a = x.shape().normalize_axis(axis);
  check_indices(indices, x.dim(a), axis, x.shape(), "index_select");
  check_same_device(x, indices, "index_select");
  const IndexSelectPlan p{x.shape().outer(a), x.shape().inner(a), x.dim(a), indices.numel()};
  Shape ys = x.shape();
  ys[a] = p.k;
  Tensor y = Tensor::empty(ys, x.dtype(), x.device());
  if (y.numel() > 0) index_select_kernel.get(x.device())(x, indices, p, y);
  return y;
}

Tensor index_select_backward(const Tensor& dy, const Shape& x_shape, int axis,
                             const Tensor& indices) {
  check_defined(dy, "index_select_backward", "dy");
  const int a = x_shape.normalize_axis(axis);
  check_indices(indices, x_shape[a], axis, x_shape, "index_select_backward");
  check_same_device(dy, indices, "index_select_backward");
  Shape expect = x_shape;
  expect[a] = indices.numel();
  REALMT_CHECK(dy.shape() == expect,
               "index_select_backward: dy {} should be {} for x {} and {} indices", dy.shape(),
               expect, x_shape, indices.numel());
  const IndexSelectPlan p{x_shape.outer(a), x_shape.inner(a), x_shape[a], indices.numel()};
  Tensor dx = Tensor::empty(x_shape, dy.dtype(), dy.device());
  if (dx.numel() > 0) index_select_backward_kernel.get(dy.device())(dy, indices, p, dx);
  return dx;
}

}  // namespace realmt::ops
