// Backward rule: with g the upstream gradient of the summed loss, dh = g dh', dw += g dw',
// dbias += g dbias' (the primed gradients of the sum, made by the forward pass).
#include "graph/linear_cross_entropy.h"

#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "ops/unary.h"

namespace realmt::graph {

namespace {

Tensor scaled(Tensor t, double g) { return g == 1.0 ? t : ops::scale(t, g); }

}  // namespace

LinearCrossEntropyOutput linear_cross_entropy(const Var& h, const Var& w, const Var& bias,
                                              const Tensor& targets,
                                              ops::LinearCrossEntropyOptions o) {
  o.with_grad = grad_enabled() && (h.requires_grad() || w.requires_grad() ||
                                   (bias.defined() && bias.requires_grad()));
  ops::LinearCrossEntropyResult r = ops::linear_cross_entropy(
      h.value(), w.value(), bias.defined() ? bias.value() : Tensor(), targets, o);
  LinearCrossEntropyOutput out;
  out.per_row = r.loss;
  std::vector<Var> inputs{h, w};
  if (bias.defined()) inputs.push_back(bias);
  out.loss = record(ops::sum_all(r.loss), std::move(inputs), "linear_cross_entropy",
                    [h, w, bias, dh = r.dh, dw = r.dw, db = r.dbias](Node& self) {
                      const double g = self.grad.to(Device::cpu()).item();
                      accumulate_owned(h.node(), scaled(dh, g));
                      accumulate(w.node(), scaled(dw, g));
                      if (bias.defined()) accumulate(bias.node(), scaled(db, g));
                    });
  return out;
}

}  // namespace realmt::graph
