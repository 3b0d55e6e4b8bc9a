#include "ops/reduce.h"

#include "ops/unary.h"

namespace realmt::ops {

namespace {

Shape reduced_shape(const Shape& s, int axis, bool keepdim) {
  std::vector<int64_t> d = s.vec();
  if (keepdim)
    d[axis] = 1;
  else
    d.erase(d.begin() + axis);
  return Shape(d);
}

void reduce(const KernelSlot<ReduceKernel>& slot, const Tensor& x, int axis, const ReduceOptions& o,
            Tensor* out, Tensor* indices) {
  check_defined(x, slot.name(), "x");
  const int a = x.shape().normalize_axis(axis);
  const ReducePlan p{x.shape().outer(a), x.dim(a), x.shape().inner(a)};
  REALMT_CHECK(p.n > 0 || slot.name() == std::string("sum_kernel"),
               "max over an empty axis {} of {}", axis, x.shape());
  *out = Tensor::empty(reduced_shape(x.shape(), a, o.keepdim), x.dtype(), x.device());
  if (indices) *indices = Tensor::empty(out->shape(), DType::kI32, x.device());
  Tensor none;
  if (out->numel() > 0) slot.get(x.device())(x, p, *out, indices ? *indices : none);
}

}  // namespace

Tensor sum(const Tensor& x, int axis, const ReduceOptions& o) {
  Tensor out;
  reduce(sum_kernel, x, axis, o, &out, nullptr);
  return out;
}

Tensor mean(const Tensor& x, int axis, const ReduceOptions& o) {
  const int64_t n = x.dim(axis);
  REALMT_CHECK(n > 0, "mean over an empty axis {} of {}", axis, x.shape());
  return scale(sum(x, axis, o), 1.0 / static_cast<double>(n));
}

Tensor max(const Tensor& x, int axis, const ReduceOptions& o) {
  Tensor out, idx;
  reduce(max_kernel, x, axis, o, &out, &idx);
  return out;
}

std::pair<Tensor, Tensor> max_with_indices(const Tensor& x, int axis, const ReduceOptions& o) {
  Tensor out, idx;
  reduce(max_kernel, x, axis, o, &out, &idx);
  return {out, idx};
}

Tensor sum_all(const Tensor& x) {
  check_defined(x, "sum_all", "x");
  return sum(x.reshape(Shape{x.numel()}), 0);
}

}  // namespace realmt::ops
