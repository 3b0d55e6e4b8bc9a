// Backward: sum broadcasts dy back over the reduced axis; mean also divides by its extent;
// max sends dy to the position of the first maximum (a one-hot along the axis).
#include "graph/reduce.h"

#include "ops/elementwise.h"
#include "ops/unary.h"

namespace realmt::graph {

namespace {
// dy [A..., B...] (or keepdim [A..., 1, B...]) broadcast to x's shape [A..., N, B...].
Tensor expand_back(const Tensor& dy, const Shape& x_shape, int axis) {
  std::vector<int64_t> kd = x_shape.vec();
  kd[axis] = 1;
  return ops::add(Tensor::zeros(x_shape, dy.dtype(), dy.device()), dy.reshape(Shape(kd)));
}
}  // namespace

Var sum(const Var& x, int axis, const ops::ReduceOptions& o) {
  const int a = x.shape().normalize_axis(axis);
  return record(ops::sum(x.value(), a, o), {x}, "sum",
                [x, a](Node& self) { accumulate(x.node(), expand_back(self.grad, x.shape(), a)); });
}

Var mean(const Var& x, int axis, const ops::ReduceOptions& o) {
  const int a = x.shape().normalize_axis(axis);
  const double inv = 1.0 / static_cast<double>(x.dim(a));
  return record(ops::mean(x.value(), a, o), {x}, "mean", [x, a, inv](Node& self) {
    accumulate(x.node(), ops::scale(expand_back(self.grad, x.shape(), a), inv));
  });
}

Var max(const Var& x, int axis, const ops::ReduceOptions& o) {
  const int a = x.shape().normalize_axis(axis);
  auto [values, indices] = ops::max_with_indices(x.value(), a, o);
  return record(std::move(values), {x}, "max", [x, a, idx = indices](Node& self) {
    // Scatter dy to the argmax positions on the host-independent path: build the one-hot
    // with the index tensor on the CPU (max is rare on hot paths: validation, tests).
    const Shape xs = x.shape();
    const ops::ReducePlan p{xs.outer(a), xs[a], xs.inner(a)};
    Tensor dy = self.grad.to(Device::cpu());
    Tensor ix = idx.to(Device::cpu());
    Tensor dx = Tensor::zeros(xs, dy.dtype(), Device::cpu());
    visit_float(dy.dtype(), "max backward", [&](auto tag) {
      using T = decltype(tag);
      const T* g = dy.data<T>();
      const int32_t* k = ix.data<int32_t>();
      T* out = dx.data<T>();
      for (int64_t o2 = 0; o2 < p.outer; ++o2)
        for (int64_t i = 0; i < p.inner; ++i)
          out[(o2 * p.n + k[o2 * p.inner + i]) * p.inner + i] = g[o2 * p.inner + i];
    });
    accumulate(x.node(), dx.to(x.device()));
  });
}

Var sum_all(const Var& x) {
  return record(ops::sum_all(x.value()), {x}, "sum_all", [x](Node& self) {
    accumulate(x.node(), ops::add(Tensor::zeros(x.shape(), x.dtype(), x.device()), self.grad));
  });
}

}  // namespace realmt::graph
