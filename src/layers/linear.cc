#include "layers/linear.h"

#include "graph/elementwise.h"
#include "graph/matmul.h"
#include "layers/init.h"

namespace realmt::layers {

Linear::Linear(graph::ParameterSet& params, const std::string& prefix, int64_t in, int64_t out, bool bias)
    : params_(&params), in_(in), out_(out) {
  weight_ = params.add(prefix + ".weight", {in, out});
  if (bias) bias_ = params.add(prefix + ".bias", {out});
}

graph::Var Linear::operator()(const graph::Var& x) const {
  REALMT_CHECK(x.dim(-1) == in_, "linear layer expects inputs [..., {}], got {}", in_, x.shape());
  // [..., Din] -> [N, Din] @ [Din, Dout]: one GEMM over all rows.
  graph::Var y = graph::matmul(x, weight());
  return has_bias() ? graph::add(y, bias()) : y;
}

void Linear::init(Generator& gen) const {
  init_xavier_uniform(weight().value(), gen);
  if (has_bias()) init_constant(bias().value(), 0.0);
}

}  // namespace realmt::layers
