#include "case_util.h"
#include "graph/matmul.h"
#include "ops/matmul.h"

namespace realmt::test {
namespace {

// C[b] = alpha op(A[b]) op(B[b or shared]) in doubles.
Tensors naive_matmul(const Tensors& in, ops::MatmulOptions o) {
  Host a(in[0]), b(in[1]);
  const int64_t am = a.shape[-2], ak = a.shape[-1];
  const int64_t m = o.trans_a ? ak : am, k = o.trans_a ? am : ak;
  const int64_t n = o.trans_b ? b.shape[-2] : b.shape[-1];
  const int64_t batch = a.shape.outer(-2);
  const bool shared = b.shape.rank() == 2;
  std::vector<int64_t> dims = a.shape.vec();
  dims[dims.size() - 2] = m;
  dims.back() = n;
  Host c{Shape(dims)};
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double av = a.v[z * m * k + (o.trans_a ? p * m + i : i * k + p)];
          const double bv = b.v[(shared ? 0 : z * k * n) + (o.trans_b ? j * k + p : p * n + j)];
          s += av * bv;
        }
        c.v[z * m * n + i * n + j] = o.alpha * s;
      }
  return {c.tensor()};
}

OpCase matmul_case(const std::string& name, Shape a, Shape b, ops::MatmulOptions o) {
  OpCase c;
  c.name = name;
  c.inputs = {{a}, {b}};
  c.run = [o](const Tensors& in) { return Tensors{ops::matmul(in[0], in[1], o)}; };
  c.reference = [o](const Tensors& in) { return naive_matmul(in, o); };
  c.graph = [o](const std::vector<graph::Var>& v) { return graph::matmul(v[0], v[1], o); };
  c.rtol = 1e-5;
  c.atol = 1e-5;
  return c;
}

REALMT_OP_CASE(matmul_plain) { return matmul_case("matmul/plain", {5, 7}, {7, 3}, {}); }
REALMT_OP_CASE(matmul_ta) {
  return matmul_case("matmul/trans_a", {7, 5}, {7, 3}, {.trans_a = true});
}
REALMT_OP_CASE(matmul_tb) {
  return matmul_case("matmul/trans_b", {5, 7}, {3, 7}, {.trans_b = true});
}
REALMT_OP_CASE(matmul_tab) {
  return matmul_case("matmul/trans_ab_alpha", {7, 5}, {3, 7},
                     {.trans_a = true, .trans_b = true, .alpha = 0.5f});
}
REALMT_OP_CASE(matmul_batched) {
  return matmul_case("matmul/batched", {2, 3, 4, 6}, {2, 3, 6, 5}, {});
}
REALMT_OP_CASE(matmul_batched_tb) {
  return matmul_case("matmul/batched_trans_b_scaled", {3, 4, 6}, {3, 5, 6},
                     {.trans_b = true, .alpha = 0.125f});
}
REALMT_OP_CASE(matmul_shared_b) { return matmul_case("matmul/shared_b", {2, 4, 6}, {6, 5}, {}); }
REALMT_OP_CASE(matmul_shared_b_ta) {
  return matmul_case("matmul/shared_b_trans_a_b", {2, 6, 4}, {5, 6},
                     {.trans_a = true, .trans_b = true});
}
REALMT_OP_CASE(matmul_large) {
  OpCase c = matmul_case("matmul/large_threaded", {96, 130}, {130, 70}, {});
  c.rtol = 1e-4;
  c.atol = 1e-4;
  c.grad_max_elements = 12;
  return c;
}

}  // namespace
}  // namespace realmt::test
