// Backward: y = x where the mask is 0 and a constant where it is set, so dy/dx is 1 at kept
// positions and 0 at filled ones: dx = masked_fill(dy, mask, 0).
#include "graph/masked_fill.h"

#include "ops/masked_fill.h"

namespace realmt::graph {

Var masked_fill(const Var& x, const Tensor& mask, double value) {
  return record(
      ops::masked_fill(x.value(), mask, value), {x}, "masked_fill",
      [x, mask](Node& self) { accumulate(x.node(), ops::masked_fill(self.grad, mask, 0.0)); });
}

}  // namespace realmt::graph
