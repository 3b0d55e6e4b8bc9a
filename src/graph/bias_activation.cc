// Backward rule: ops::bias_activation_backward (derivation in ops/bias_activation.h).
#include "graph/bias_activation.h"

namespace realmt::graph {

Var bias_activation(const Var& y, const Var& bias, ops::BiasActivationOptions o, Generator* gen) {
  if (!gen || o.dropout <= 0) o.dropout = 0;
  if (o.dropout > 0) {
    o.seed = gen->seed();
    o.offset = gen->reserve(static_cast<uint64_t>(y.value().numel()));
  }
  const Tensor b = bias.defined() ? bias.value() : Tensor();
  std::vector<Var> inputs{y};
  if (bias.defined()) inputs.push_back(bias);
  Tensor h = ops::bias_activation(y.value(), b, o);
  // relu's backward reads the output; gelu/swish recompute from y (no reference kept to h).
  const Tensor keep_h = o.activation == ops::Activation::kRelu ? h : Tensor();
  return record(std::move(h), std::move(inputs), "bias_activation",
                [y, bias, b, o, keep_h](Node& self) {
                  ops::BiasActivationGrads g =
                      ops::bias_activation_backward(self.grad, keep_h, y.value(), b, o);
                  accumulate_owned(y.node(), std::move(g.dy));
                  if (bias.defined()) accumulate(bias.node(), g.dbias);
                });
}

}  // namespace realmt::graph
