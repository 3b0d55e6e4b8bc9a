// Backward rule: y = x * m * s with a mask m in {0, 1} that does not depend on x and
// s = 1 / (1 - p), so dx = dy * m * s: ops::dropout_backward with the same (seed, offset).
#include "graph/dropout.h"

#include "ops/dropout.h"

namespace realmt::graph {

Var dropout(const Var& x, double p, Generator& gen) {
  REALMT_CHECK(p >= 0.0 && p < 1.0, "dropout: p = {} is outside [0, 1)", p);
  if (p == 0.0) return x;
  const ops::DropoutOptions o{
      .p = p, .seed = gen.seed(), .offset = gen.reserve(static_cast<uint64_t>(x.value().numel()))};
  return record(ops::dropout(x.value(), o), {x}, "dropout",
                [x, o](Node& self) { accumulate(x.node(), ops::dropout_backward(self.grad, o)); });
}

}  // namespace realmt::graph
