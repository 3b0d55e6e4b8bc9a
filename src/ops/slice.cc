#include "ops/slice.h"

namespace realmt::ops {

Tensor slice(const Tensor& x, int axis, int64_t begin, int64_t end) {
  check_defined(x, "slice", "x");
  const int a = x.shape().normalize_axis(axis);
  const int64_t n = x.dim(a);
  REALMT_CHECK(0 <= begin && begin <= end && end <= n,
               "slice: range [{}, {}) is out of bounds for axis {} of extent {} in x {}", begin,
               end, axis, n, x.shape());
  Shape ys = x.shape();
  ys[a] = end - begin;
  Tensor y = Tensor::empty(ys, x.dtype(), x.device());
  const SlicePlan p{x.shape().outer(a), x.shape().inner(a), n, end - begin, begin};
  if (y.numel() > 0) slice_kernel.get(x.device())(x, p, y);
  return y;
}

Tensor slice_backward(const Tensor& dy, const Shape& x_shape, int axis, int64_t begin) {
  check_defined(dy, "slice_backward", "dy");
  const int a = x_shape.normalize_axis(axis);
  REALMT_CHECK(dy.rank() == x_shape.rank(), "slice_backward: dy {} and x {} differ in rank",
               dy.shape(), x_shape);
  for (int i = 0; i < x_shape.rank(); ++i)
    REALMT_CHECK(i == a || dy.dim(i) == x_shape[i],
                 "slice_backward: dy {} does not fit x {} outside axis {}", dy.shape(), x_shape,
                 axis);
  const int64_t m = dy.dim(a), n = x_shape[a];
  REALMT_CHECK(0 <= begin && begin + m <= n,
               "slice_backward: rows [{}, {}) are out of bounds for axis {} of extent {} in x {}",
               begin, begin + m, axis, n, x_shape);
  Tensor dx = Tensor::empty(x_shape, dy.dtype(), dy.device());
  const SlicePlan p{x_shape.outer(a), x_shape.inner(a), n, m, begin};
  if (dx.numel() > 0) slice_backward_kernel.get(dy.device())(dy, p, dx);
  return dx;
}

}  // namespace realmt::ops
