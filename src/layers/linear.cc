#include "layers/linear.h"

#include "graph/linear.h"
#include "layers/init.h"

namespace realmt::layers {

Linear::Linear(graph::ParameterSet& params, const std::string& prefix, int64_t in, int64_t out, bool bias, int blocks)
    : params_(&params), in_(in), out_(out), blocks_(blocks) {
  weight_ = params.add(prefix + ".weight", {in, out});
  if (bias) bias_ = params.add(prefix + ".bias", {out});
}

graph::Var Linear::operator()(const graph::Var& x) const {
  REALMT_CHECK(x.dim(-1) == in_, "linear layer expects inputs [..., {}], got {}", in_, x.shape());
  return graph::linear(x, weight(), bias_or_none());
}

graph::Var Linear::project(const graph::Var& x) const {
  REALMT_CHECK(x.dim(-1) == in_, "linear layer expects inputs [..., {}], got {}", in_, x.shape());
  return graph::linear(x, weight(), graph::Var());
}

void Linear::init(Generator& gen) const {
  init_xavier_uniform(weight().value(), gen, blocks_);
  if (has_bias()) init_constant(bias().value(), 0.0);
}

}  // namespace realmt::layers
