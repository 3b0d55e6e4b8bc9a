// Backward rule. With p_i = softmax(x_i) and q_i the smoothed target distribution
// (sum_j q_ij = 1), loss_i = lse_i - sum_j q_ij x_ij, and d lse_i / d x_ij = p_ij, so
//   d loss_i / d x_ij = p_ij - q_ij,   dx_ij = g_i (p_ij - q_ij);
// ignored rows have a constant loss (0), hence a zero gradient. The forward pass keeps lse,
// so the backward recomputes p = exp(x - lse) without a second reduction.
#include "graph/cross_entropy.h"

namespace realmt::graph {

Var cross_entropy(const Var& logits, const Tensor& targets,
                  const ops::CrossEntropyOptions& options) {
  ops::CrossEntropyResult r = ops::cross_entropy(logits.value(), targets, options);
  Tensor lse = r.lse;
  return record(
      std::move(r.loss), {logits}, "cross_entropy", [logits, targets, lse, options](Node& self) {
        accumulate(logits.node(),
                   ops::cross_entropy_backward(self.grad, logits.value(), targets, lse, options));
      });
}

}  // namespace realmt::graph
