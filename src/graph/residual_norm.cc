// Backward rule: ops::residual_norm_backward (derivation in ops/residual_norm.h); in the stream
// form the gradient reaching z from its own consumers is added to the one through the norm.
#include "graph/residual_norm.h"

namespace realmt::graph {

namespace {

Tensor value_or_empty(const Var& v) { return v.defined() ? v.value() : Tensor(); }

MultiOutput run(const ResidualNormInputs& in, ops::ResidualNormOptions o, Generator* gen,
                bool stream) {
  if (!gen || o.dropout <= 0) o.dropout = 0;
  if (o.dropout > 0) {
    o.seed = gen->seed();
    o.offset = gen->reserve(static_cast<uint64_t>(in.x.value().numel()));
  }
  const Tensor omega = value_or_empty(in.omega), bias = value_or_empty(in.bias);
  ops::ResidualNormResult r = ops::residual_norm(in.x.value(), in.y.value(), omega, bias,
                                                 in.gamma.value(), in.beta.value(), o);
  std::vector<Var> inputs{in.x, in.y, in.gamma, in.beta};
  if (in.omega.defined()) inputs.push_back(in.omega);
  if (in.bias.defined()) inputs.push_back(in.bias);
  std::vector<Tensor> secondary;
  if (stream) secondary.push_back(r.z);
  Tensor n = r.n;
  return record_multi(
      std::move(n), std::move(secondary), std::move(inputs), "residual_norm",
      [in, o, r, omega, bias](Node& node, const std::vector<Node*>& sec) {
        Tensor dz;
        if (!sec.empty() && sec[0] && sec[0]->grad.defined()) dz = sec[0]->grad;
        const Tensor dn =
            node.grad.defined() ? node.grad : Tensor::zeros(r.n.shape(), r.n.dtype(), r.n.device());
        ops::ResidualNormGrads g =
            ops::residual_norm_backward(dn, dz, in.x.value(), r, omega, bias, in.gamma.value(), o);
        accumulate_owned(in.x.node(), std::move(g.dx));
        accumulate_owned(in.y.node(), std::move(g.dy));
        accumulate(in.gamma.node(), g.dgamma);
        accumulate(in.beta.node(), g.dbeta);
        if (in.omega.defined()) accumulate(in.omega.node(), g.domega);
        if (in.bias.defined()) accumulate(in.bias.node(), g.dbias);
      });
}

}  // namespace

Var residual_norm(const ResidualNormInputs& in, ops::ResidualNormOptions o, Generator* gen) {
  return run(in, o, gen, false).primary;
}

ResidualStream residual_norm_stream(const ResidualNormInputs& in, ops::ResidualNormOptions o,
                                    Generator* gen) {
  MultiOutput m = run(in, o, gen, true);
  return {m.secondary[0], m.primary};
}

}  // namespace realmt::graph
