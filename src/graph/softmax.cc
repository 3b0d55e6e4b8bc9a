#include "graph/softmax.h"

#include "ops/softmax.h"

namespace realmt::graph {

Var softmax(const Var& x, const Tensor& mask) {
  return record(ops::softmax(x.value(), mask), {x}, "softmax", [x](Node& self) {
    accumulate(x.node(), ops::softmax_backward(self.grad, self.value));
  });
}

Var log_softmax(const Var& x, const Tensor& mask) {
  return record(ops::log_softmax(x.value(), mask), {x}, "log_softmax", [x](Node& self) {
    accumulate(x.node(), ops::log_softmax_backward(self.grad, self.value));
  });
}

}  // namespace realmt::graph
