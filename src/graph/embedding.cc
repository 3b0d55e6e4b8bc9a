// Backward rule: y[p, :] = weight[ids[p], :] is linear in the weight with
// d y[p, c] / d weight[v, c] = [ids[p] == v], so
//   dweight[v, :] = sum over positions p with ids[p] == v of dy[p, :]
// (a scatter-add; rows whose id never occurs get 0).
#include "graph/embedding.h"

#include "ops/embedding.h"

namespace realmt::graph {

Var embedding(const Var& weight, const Tensor& ids) {
  return record(ops::embedding(weight.value(), ids), {weight}, "embedding",
                [weight, ids](Node& self) {
                  accumulate(weight.node(), ops::embedding_backward(self.grad, ids, weight.dim(0)));
                });
}

}  // namespace realmt::graph
