// Cases of the fused sub-layer epilogue (ops/residual_norm.h): with and without omega and
// bias, with dropout, and the Pre-LN stream form (both outputs in the checked loss).
#include <cmath>

#include "case_util.h"
#include "core/rng.h"
#include "graph/concat.h"
#include "graph/permute.h"
#include "graph/residual_norm.h"
#include "ops/residual_norm.h"

namespace realmt::test {
namespace {

constexpr double kEps = 1e-5;
constexpr uint64_t kSeed = 5, kOffset = 3;

struct Spec {
  std::string name;
  Shape x{3, 4, 6};
  bool omega = true, bias = true, stream = false;
  double dropout = 0.0;
};

// Inputs: x, y, gamma, beta, then omega and bias when present.
Tensors naive(const Spec& s, const Tensors& in) {
  Host x(in[0]), y(in[1]), gamma(in[2]), beta(in[3]);
  int next = 4;
  const Host omega = s.omega ? Host(in[next++]) : Host(Shape{s.x[-1]}, 1.0);
  const Host bias = s.bias ? Host(in[next++]) : Host(Shape{s.x[-1]}, 0.0);
  const int64_t d = s.x[-1], rows = s.x.numel() / d;
  Host z(s.x), n(s.x), mean(Shape{rows}), rstd(Shape{rows});
  for (int64_t r = 0; r < rows; ++r) {
    double mu = 0, var = 0;
    for (int64_t j = 0; j < d; ++j) {
      const int64_t e = r * d + j;
      double branch = y.v[e] + bias.v[j];
      if (s.dropout > 0) {
        const double u = u32_to_unit_float(philox_u32(kSeed, kOffset + e));
        branch = u >= s.dropout ? branch / (1.0 - s.dropout) : 0.0;
      }
      z.v[e] = x.v[e] * omega.v[j] + branch;
      mu += z.v[e] / d;
    }
    for (int64_t j = 0; j < d; ++j) var += (z.v[r * d + j] - mu) * (z.v[r * d + j] - mu) / d;
    mean.v[r] = mu;
    rstd.v[r] = 1.0 / std::sqrt(var + kEps);
    for (int64_t j = 0; j < d; ++j)
      n.v[r * d + j] = (z.v[r * d + j] - mu) * rstd.v[r] * gamma.v[j] + beta.v[j];
  }
  return {z.tensor(), n.tensor(), mean.tensor(), rstd.tensor()};
}

OpCase make(const Spec& s) {
  OpCase c;
  c.name = "residual_norm/" + s.name;
  const int64_t d = s.x[-1];
  c.inputs = {spec(s.x, -2, 2), spec(s.x, -2, 2), spec(Shape{d}, 0.5, 1.5), spec(Shape{d}, -1, 1)};
  if (s.omega) c.inputs.push_back(spec(Shape{d}, 0.5, 2.0));
  if (s.bias) c.inputs.push_back(spec(Shape{d}, -1, 1));
  ops::ResidualNormOptions o;
  o.eps = kEps;
  o.dropout = s.dropout;
  o.seed = kSeed;
  o.offset = kOffset;
  c.run = [s, o](const Tensors& in) {
    int next = 4;
    const Tensor omega = s.omega ? in[next++] : Tensor();
    const Tensor bias = s.bias ? in[next++] : Tensor();
    ops::ResidualNormResult r = ops::residual_norm(in[0], in[1], omega, bias, in[2], in[3], o);
    return Tensors{r.z, r.n, r.mean, r.rstd};
  };
  c.reference = [s](const Tensors& in) { return naive(s, in); };
  c.graph = [s, o](const std::vector<graph::Var>& v) {
    int next = 4;
    graph::ResidualNormInputs in{.x = v[0], .y = v[1], .gamma = v[2], .beta = v[3]};
    if (s.omega) in.omega = v[next++];
    if (s.bias) in.bias = v[next++];
    Generator gen(kSeed);
    gen.set_state(kSeed, kOffset);
    if (!s.stream) return graph::residual_norm(in, o, &gen);
    const graph::ResidualStream r = graph::residual_norm_stream(in, o, &gen);
    return graph::concat({graph::reshape(r.z, {-1}), graph::reshape(r.n, {-1})}, 0);
  };
  c.rtol = 1e-5;
  c.atol = 2e-6;
  return c;
}

REALMT_OP_CASE(residual_norm_admin) { return make({"omega_bias"}); }
REALMT_OP_CASE(residual_norm_plain) { return make({"no_omega", {5, 8}, false, true}); }
REALMT_OP_CASE(residual_norm_nobias_dropout) {
  Spec s{"dropout_no_bias", {4, 2, 9}, true, false};
  s.dropout = 0.3;
  return make(s);
}
REALMT_OP_CASE(residual_norm_stream) {
  Spec s{"pre_ln_stream", {3, 7}, false, true, true};
  s.dropout = 0.2;
  return make(s);
}
REALMT_OP_CASE(residual_norm_rows_blocks) {
  // More rows than one block of the backward's column sums (32), offset not a multiple of 4.
  Spec s{"many_rows", {70, 16}, true, true};
  s.dropout = 0.1;
  return make(s);
}

}  // namespace
}  // namespace realmt::test
