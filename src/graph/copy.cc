// Backward: y = x on another device, the identity on values, so dx = dy copied back to x's
// device.
#include "graph/copy.h"

#include "ops/copy.h"

namespace realmt::graph {

Var copy_to(const Var& x, Device device) {
  return record(ops::copy_to(x.value(), device), {x}, "copy_to",
                [x](Node& self) { accumulate(x.node(), ops::copy_to(self.grad, x.device())); });
}

}  // namespace realmt::graph
