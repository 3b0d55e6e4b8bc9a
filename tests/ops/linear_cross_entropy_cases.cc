// Cases of the fused output projection + label-smoothed cross-entropy
// (ops/linear_cross_entropy.h): several chunks, padding rows, with and without a bias.
#include <cmath>

#include "case_util.h"
#include "graph/linear_cross_entropy.h"
#include "ops/linear_cross_entropy.h"

namespace realmt::test {
namespace {

// Targets in [0, V) with row 1 and the last row set to the ignore index 0.
Tensor targets(int64_t n, int64_t v) {
  std::vector<int32_t> t(n);
  for (int64_t i = 0; i < n; ++i) t[i] = static_cast<int32_t>(1 + (i * 7) % (v - 1));
  t[1] = 0;
  t[n - 1] = 0;
  return Tensor::from_vector(t, {n});
}

OpCase make(const std::string& name, int64_t n, int64_t d, int64_t v, bool bias, double ls,
            int64_t chunk) {
  OpCase c;
  c.name = "linear_cross_entropy/" + name;
  c.inputs = {spec(Shape{n, d}, -1, 1), spec(Shape{v, d}, -1, 1)};
  if (bias) c.inputs.push_back(spec(Shape{v}, -0.5, 0.5));
  InputSpec t;
  t.differentiable = false;
  t.make = [n, v](Generator&, DType) { return targets(n, v); };
  c.inputs.push_back(t);
  ops::LinearCrossEntropyOptions o;
  o.label_smoothing = ls;
  o.chunk_rows = chunk;
  c.run = [o, bias](const Tensors& in) {
    return Tensors{
        ops::linear_cross_entropy(in[0], in[1], bias ? in[2] : Tensor(), in.back(), o).loss};
  };
  c.reference = [ls, bias](const Tensors& in) {
    Host h(in[0]), w(in[1]);
    const Tensor tt = in.back();
    const int64_t rows = h.shape[0], dd = h.shape[1], vv = w.shape[0];
    const Host b = bias ? Host(in[2]) : Host(Shape{vv}, 0.0);
    Host loss(Shape{rows});
    for (int64_t i = 0; i < rows; ++i) {
      const int32_t target = tt.data<int32_t>()[i];
      if (target == 0) continue;
      std::vector<double> z(vv);
      double mx = -INFINITY;
      for (int64_t j = 0; j < vv; ++j) {
        z[j] = b.v[j];
        for (int64_t e = 0; e < dd; ++e) z[j] += h.v[i * dd + e] * w.v[j * dd + e];
        mx = std::max(mx, z[j]);
      }
      double s = 0;
      for (double x : z) s += std::exp(x - mx);
      const double lse = mx + std::log(s);
      double l = 0;
      for (int64_t j = 0; j < vv; ++j) l -= ((j == target ? 1 - ls : 0) + ls / vv) * (z[j] - lse);
      loss.v[i] = l;
    }
    return Tensors{loss.tensor()};
  };
  c.graph = [o, bias](const std::vector<graph::Var>& in) {
    return graph::linear_cross_entropy(in[0], in[1], bias ? in[2] : graph::Var(), in.back().value(),
                                       o)
        .loss;
  };
  c.rtol = 2e-5;
  c.atol = 2e-5;
  return c;
}

REALMT_OP_CASE(lce_chunks) { return make("three_chunks_ls", 7, 5, 11, false, 0.1, 3); }
REALMT_OP_CASE(lce_bias) { return make("bias_one_chunk", 5, 4, 9, true, 0.0, 0); }
REALMT_OP_CASE(lce_bias_chunks) { return make("bias_chunks_ls", 9, 6, 13, true, 0.2, 2); }

}  // namespace
}  // namespace realmt::test
