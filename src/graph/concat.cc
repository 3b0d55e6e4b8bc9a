// Backward: input k occupies rows [offset_k, offset_k + N_k) of y along the axis, so its
// gradient is that slice of dy.
#include "graph/concat.h"

#include "ops/concat.h"
#include "ops/slice.h"

namespace realmt::graph {

Var concat(const std::vector<Var>& xs, int axis) {
  std::vector<Tensor> values;
  values.reserve(xs.size());
  for (const Var& x : xs) values.push_back(x.value());
  Tensor y = ops::concat(values, axis);  // checks the inputs
  const int a = xs[0].shape().normalize_axis(axis);
  return record(std::move(y), xs, "concat", [xs, a](Node& self) {
    int64_t offset = 0;
    for (const Var& x : xs) {
      const int64_t n = x.dim(a);
      if (x.requires_grad()) accumulate(x.node(), ops::slice(self.grad, a, offset, offset + n));
      offset += n;
    }
  });
}

}  // namespace realmt::graph
