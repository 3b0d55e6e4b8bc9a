#include "layers/layer_norm.h"

#include "graph/layer_norm.h"
#include "layers/init.h"

namespace realmt::layers {

LayerNorm::LayerNorm(graph::ParameterSet& params, const std::string& prefix, int64_t dim,
                     double eps)
    : params_(&params), eps_(eps) {
  gamma_ = params.add(prefix + ".gamma", {dim}, constant(1.0));
  beta_ = params.add(prefix + ".beta", {dim}, constant(0.0));
}

graph::Var LayerNorm::operator()(const graph::Var& x) const {
  return graph::layer_norm(x, (*params_)[gamma_], (*params_)[beta_], eps_);
}

}  // namespace realmt::layers
