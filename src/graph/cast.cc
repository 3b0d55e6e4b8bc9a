// Backward: a floating cast is the identity up to rounding, so dx = dy cast back to x's dtype
// (the rounding's derivative is taken as 1, as every framework does for mixed precision).
#include "graph/cast.h"

#include "ops/cast.h"

namespace realmt::graph {

Var cast(const Var& x, DType dtype) {
  REALMT_CHECK(!x.requires_grad() || (is_floating(x.dtype()) && is_floating(dtype)),
               "graph::cast from {} to {}: only floating -> floating casts carry a gradient",
               x.dtype(), dtype);
  const DType from = x.dtype();
  return record(ops::cast(x.value(), dtype), {x}, "cast",
                [x, from](Node& self) { accumulate(x.node(), ops::cast(self.grad, from)); });
}

}  // namespace realmt::graph
