// Backward rules:
//   permute: y[i] = x[j] with j_perm[a] = i_a, so dx = permute(dy, inverse(perm)) where
//     inverse[perm[a]] = a (each element moves back to where it came from).
//   transpose(a, b) is its own inverse: dx = transpose(dy, a, b).
//   reshape moves no element: dx = dy viewed with x's shape.
#include "graph/permute.h"

#include "ops/permute.h"

namespace realmt::graph {

Var permute(const Var& x, const std::vector<int>& perm) {
  Tensor y = ops::permute(x.value(), perm);  // checks perm
  const int r = x.rank();
  std::vector<int> inverse(r);
  for (int a = 0; a < r; ++a) inverse[perm[a] < 0 ? perm[a] + r : perm[a]] = a;
  return record(std::move(y), {x}, "permute", [x, inverse](Node& self) {
    accumulate(x.node(), ops::permute(self.grad, inverse));
  });
}

Var transpose(const Var& x, int a, int b) {
  return record(ops::transpose(x.value(), a, b), {x}, "transpose",
                [x, a, b](Node& self) { accumulate(x.node(), ops::transpose(self.grad, a, b)); });
}

Var reshape(const Var& x, const std::vector<int64_t>& dims) {
  return record(x.value().reshape(dims), {x}, "reshape",
                [x](Node& self) { accumulate(x.node(), self.grad.reshape(x.shape())); });
}

}  // namespace realmt::graph
