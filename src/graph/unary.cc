// Backward rules: relu, gelu, swish through their ops::*_backward kernels; exp: dx = dy y;
// log: dx = dy / x; sqrt: dx = dy / (2 y); scale: dx = s dy.
#include "graph/unary.h"

#include "ops/elementwise.h"
#include "ops/unary.h"

namespace realmt::graph {

Var relu(const Var& x) {
  return record(ops::relu(x.value()), {x}, "relu", [x](Node& self) {
    accumulate(x.node(), ops::relu_backward(self.grad, x.value()));
  });
}

Var gelu(const Var& x) {
  return record(ops::gelu(x.value()), {x}, "gelu", [x](Node& self) {
    accumulate(x.node(), ops::gelu_backward(self.grad, x.value()));
  });
}

Var swish(const Var& x) {
  return record(ops::swish(x.value()), {x}, "swish", [x](Node& self) {
    accumulate(x.node(), ops::swish_backward(self.grad, x.value()));
  });
}

Var exp(const Var& x) {
  return record(ops::exp(x.value()), {x}, "exp",
                [x](Node& self) { accumulate(x.node(), ops::mul(self.grad, self.value)); });
}

Var log(const Var& x) {
  return record(ops::log(x.value()), {x}, "log",
                [x](Node& self) { accumulate(x.node(), ops::div(self.grad, x.value())); });
}

Var sqrt(const Var& x) {
  return record(ops::sqrt(x.value()), {x}, "sqrt", [x](Node& self) {
    accumulate(x.node(), ops::scale(ops::div(self.grad, self.value), 0.5));
  });
}

Var scale(const Var& x, double s) {
  return record(ops::scale(x.value(), s), {x}, "scale",
                [x, s](Node& self) { accumulate(x.node(), ops::scale(self.grad, s)); });
}

}  // namespace realmt::graph
