// Backward rules (before reducing over broadcast axes with sum_to):
//   add: da = g, db = g;  sub: da = g, db = -g;  mul: da = g b, db = g a;
//   div: da = g / b, db = -g a / b^2.
#include "graph/elementwise.h"

#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "ops/unary.h"

namespace realmt::graph {

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g.shape() == shape) return g;
  Tensor r = g;
  // Leading axes that the value did not have.
  while (r.rank() > shape.rank()) r = ops::sum(r, 0);
  for (int i = 0; i < shape.rank(); ++i)
    if (shape[i] == 1 && r.dim(i) != 1) r = ops::sum(r, i, {.keepdim = true});
  return r.reshape(shape);
}

Var add(const Var& a, const Var& b) {
  return record(ops::add(a.value(), b.value()), {a, b}, "add", [a, b](Node& self) {
    accumulate(a.node(), sum_to(self.grad, a.shape()));
    accumulate(b.node(), sum_to(self.grad, b.shape()));
  });
}

Var sub(const Var& a, const Var& b) {
  return record(ops::sub(a.value(), b.value()), {a, b}, "sub", [a, b](Node& self) {
    accumulate(a.node(), sum_to(self.grad, a.shape()));
    if (b.requires_grad()) accumulate(b.node(), sum_to(ops::scale(self.grad, -1.0), b.shape()));
  });
}

Var mul(const Var& a, const Var& b) {
  return record(ops::mul(a.value(), b.value()), {a, b}, "mul", [a, b](Node& self) {
    if (a.requires_grad()) accumulate(a.node(), sum_to(ops::mul(self.grad, b.value()), a.shape()));
    if (b.requires_grad()) accumulate(b.node(), sum_to(ops::mul(self.grad, a.value()), b.shape()));
  });
}

Var div(const Var& a, const Var& b) {
  return record(ops::div(a.value(), b.value()), {a, b}, "div", [a, b](Node& self) {
    const Tensor ga = ops::div(self.grad, b.value());  // g / b
    if (a.requires_grad()) accumulate(a.node(), sum_to(ga, a.shape()));
    if (b.requires_grad()) {
      // -g a / b^2 = -(g / b) * (a / b) = -(ga * y) with y = a / b the output.
      accumulate(b.node(), sum_to(ops::scale(ops::mul(ga, self.value), -1.0), b.shape()));
    }
  });
}

}  // namespace realmt::graph
