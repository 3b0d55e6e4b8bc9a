// Backward: y[a, k, b] = x[a, indices[k], b], so dL/dx[a, n, b] = sum over k with
// indices[k] = n of dy[a, k, b]: a scatter-add of dy into zeros (ops::index_select_backward,
// deterministic: repeated indices are summed in order of k).
#include "graph/index_select.h"

#include "ops/index_select.h"

namespace realmt::graph {

Var index_select(const Var& x, int axis, const Tensor& indices) {
  const int a = x.shape().normalize_axis(axis);
  return record(
      ops::index_select(x.value(), a, indices), {x}, "index_select", [x, a, indices](Node& self) {
        accumulate(x.node(), ops::index_select_backward(self.grad, x.shape(), a, indices));
      });
}

}  // namespace realmt::graph
