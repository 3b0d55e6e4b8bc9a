// Backward of C = alpha op(A) op(B) (op = transpose or not), from dC:
//   A, B plain:   dA = alpha dC B^T        dB = alpha A^T dC
//   A^T:          dA = alpha B dC^T        dB = alpha A dC
//   B^T:          dA = alpha dC B          dB = alpha dC^T A
//   A^T, B^T:     dA = alpha B^T dC^T      dB = alpha dC^T A^T
// A 2-D B shared by a batch gets the sum over the batch: with a plain A that is one GEMM of
// the flattened [batch*M, K] A; otherwise per-member products summed over the batch.
#include "graph/matmul.h"

#include "ops/reduce.h"

namespace realmt::graph {

Var matmul(const Var& a, const Var& b, const ops::MatmulOptions& o) {
  Tensor c = ops::matmul(a.value(), b.value(), o);
  return record(std::move(c), {a, b}, "matmul", [a, b, o](Node& self) {
    const Tensor& dc = self.grad;
    const Tensor& av = a.value();
    const Tensor& bv = b.value();
    const float s = o.alpha;
    if (a.requires_grad()) {
      Tensor da;
      if (!o.trans_a)
        da = ops::matmul(dc, bv, {.trans_b = !o.trans_b, .alpha = s});
      else
        da = ops::matmul(bv, dc, {.trans_a = o.trans_b, .trans_b = true, .alpha = s});
      accumulate(a.node(), da);
    }
    if (b.requires_grad()) {
      const bool shared = bv.rank() == 2 && av.rank() > 2;
      Tensor db;
      if (shared && !o.trans_a) {
        const Tensor a2 = av.reshape({-1, av.dim(-1)});
        const Tensor dc2 = dc.reshape({-1, dc.dim(-1)});
        db = o.trans_b ? ops::matmul(dc2, a2, {.trans_a = true, .alpha = s})
                       : ops::matmul(a2, dc2, {.trans_a = true, .alpha = s});
      } else {
        // Per-member gradients; B broadcast over the batch when shared.
        if (!o.trans_b)
          db = ops::matmul(av, dc, {.trans_a = !o.trans_a, .alpha = s});
        else
          db = ops::matmul(dc, av, {.trans_a = true, .trans_b = o.trans_a, .alpha = s});
        if (shared) {
          db = ops::sum(db.reshape({-1, db.dim(-2), db.dim(-1)}), 0);
        }
      }
      accumulate(b.node(), db);
    }
  });
}

}  // namespace realmt::graph
