#include "ops/concat.h"

namespace realmt::ops {

Tensor concat(const std::vector<Tensor>& xs, int axis) {
  REALMT_CHECK(!xs.empty(), "concat: no inputs");
  const Tensor& first = xs[0];
  check_defined(first, "concat", "xs[0]");
  const int a = first.shape().normalize_axis(axis);
  Shape ys = first.shape();
  int64_t total = 0;
  for (size_t k = 0; k < xs.size(); ++k) {
    const Tensor& x = xs[k];
    check_defined(x, "concat", "xs[k]");
    check_same_device(first, x, "concat");
    REALMT_CHECK(x.dtype() == first.dtype(), "concat: input {} is {}, input 0 is {}", k, x.dtype(),
                 first.dtype());
    bool fits = x.rank() == first.rank();
    for (int i = 0; fits && i < x.rank(); ++i) fits = i == a || x.dim(i) == first.dim(i);
    REALMT_CHECK(
        fits,
        "concat along axis {}: input {} has shape {}, input 0 has {} (only axis {} may differ)",
        axis, k, x.shape(), first.shape(), a);
    total += x.dim(a);
  }
  ys[a] = total;
  Tensor y = Tensor::empty(ys, first.dtype(), first.device());
  if (y.numel() == 0) return y;
  ConcatPlan p{ys.outer(a), ys.inner(a), 0, total, 0};
  for (const Tensor& x : xs) {
    p.x_extent = x.dim(a);
    if (x.numel() > 0) concat_kernel.get(y.device())(x, p, y);
    p.offset += p.x_extent;
  }
  return y;
}

}  // namespace realmt::ops
