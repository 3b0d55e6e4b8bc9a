// Backward rule: the fused ops::layer_norm_backward, fed the row mean and rstd kept from the
// forward pass. With xhat = (x - mean) * rstd and g = dy * gamma:
//   dx = rstd * (g - mean_D(g) - xhat * mean_D(g * xhat))   (derivation in ops/layer_norm_cpu.cc),
//   dgamma = sum over rows of dy * xhat,  dbeta = sum over rows of dy.
#include "graph/layer_norm.h"

#include "ops/layer_norm.h"

namespace realmt::graph {

Var layer_norm(const Var& x, const Var& gamma, const Var& beta, double eps) {
  ops::LayerNormResult r = ops::layer_norm(x.value(), gamma.value(), beta.value(), eps);
  Tensor mean = r.mean, rstd = r.rstd;
  return record(std::move(r.y), {x, gamma, beta}, "layer_norm",
                [x, gamma, beta, mean, rstd](Node& self) {
                  const ops::LayerNormGrads g =
                      ops::layer_norm_backward(self.grad, x.value(), gamma.value(), mean, rstd);
                  accumulate(x.node(), g.dx);
                  accumulate(gamma.node(), g.dgamma);
                  accumulate(beta.node(), g.dbeta);
                });
}

}  // namespace realmt::graph
