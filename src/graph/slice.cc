// Backward: y = x[begin:end] along the axis picks elements, so dx is dy at the picked rows
// and zero at the rows the slice dropped (ops::slice_backward).
#include "graph/slice.h"

#include "ops/slice.h"

namespace realmt::graph {

Var slice(const Var& x, int axis, int64_t begin, int64_t end) {
  const int a = x.shape().normalize_axis(axis);
  return record(ops::slice(x.value(), a, begin, end), {x}, "slice", [x, a, begin](Node& self) {
    accumulate(x.node(), ops::slice_backward(self.grad, x.shape(), a, begin));
  });
}

}  // namespace realmt::graph
