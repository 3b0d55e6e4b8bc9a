#include <cmath>

#include "case_util.h"
#include "graph/layer_norm.h"
#include "ops/layer_norm.h"

namespace realmt::test {
namespace {

constexpr double kEps = 1e-5;

InputSpec spec(const Shape& shape, double lo, double hi, bool differentiable = true) {
  InputSpec s;
  s.shape = shape;
  s.lo = lo;
  s.hi = hi;
  s.differentiable = differentiable;
  return s;
}

// Row statistics in doubles, straight from the definitions.
struct Stats {
  double mean, rstd;
};
Stats stats_of(const double* x, int64_t d) {
  double mean = 0, var = 0;
  for (int64_t j = 0; j < d; ++j) mean += x[j] / d;
  for (int64_t j = 0; j < d; ++j) var += (x[j] - mean) * (x[j] - mean) / d;
  return {mean, 1.0 / std::sqrt(var + kEps)};
}

Tensors naive_forward(const Tensors& in) {
  Host x(in[0]), gamma(in[1]), beta(in[2]);
  const int64_t d = x.shape[-1], rows = x.shape.numel() / d;
  Host y(x.shape), mean(Shape{rows}), rstd(Shape{rows});
  for (int64_t r = 0; r < rows; ++r) {
    const Stats s = stats_of(&x.v[r * d], d);
    mean.v[r] = s.mean;
    rstd.v[r] = s.rstd;
    for (int64_t j = 0; j < d; ++j)
      y.v[r * d + j] = (x.v[r * d + j] - s.mean) * s.rstd * gamma.v[j] + beta.v[j];
  }
  return {y.tensor(), mean.tensor(), rstd.tensor()};
}

// Backward through the explicit Jacobian of xhat (O(D^2) per row), not the fused formula:
//   d xhat_k / d x_j = rstd (delta_jk - 1/D - xhat_j xhat_k / D).
Tensors naive_backward(const Tensors& in) {
  Host x(in[0]), gamma(in[1]), dy(in[3]);
  const int64_t d = x.shape[-1], rows = x.shape.numel() / d;
  Host dx(x.shape), dgamma(Shape{d}), dbeta(Shape{d});
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = &x.v[r * d];
    const Stats s = stats_of(xr, d);
    std::vector<double> xhat(d);
    for (int64_t j = 0; j < d; ++j) xhat[j] = (xr[j] - s.mean) * s.rstd;
    for (int64_t j = 0; j < d; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < d; ++k) {
        const double jac = s.rstd * ((j == k ? 1.0 : 0.0) - 1.0 / d - xhat[j] * xhat[k] / d);
        acc += dy.v[r * d + k] * gamma.v[k] * jac;
      }
      dx.v[r * d + j] = acc;
      dgamma.v[j] += dy.v[r * d + j] * xhat[j];
      dbeta.v[j] += dy.v[r * d + j];
    }
  }
  return {dx.tensor(), dgamma.tensor(), dbeta.tensor()};
}

OpCase ln_case(const std::string& name, const Shape& x, double lo, double hi,
               DType dtype = DType::kF32) {
  OpCase c;
  c.name = name;
  c.dtype = dtype;
  const int64_t d = x[-1];
  c.inputs = {spec(x, lo, hi), spec(Shape{d}, 0.5, 1.5), spec(Shape{d}, -1.0, 1.0)};
  c.run = [](const Tensors& in) {
    ops::LayerNormResult r = ops::layer_norm(in[0], in[1], in[2], kEps);
    return Tensors{r.y, r.mean, r.rstd};
  };
  c.reference = naive_forward;
  c.graph = [](const std::vector<graph::Var>& v) {
    return graph::layer_norm(v[0], v[1], v[2], kEps);
  };
  if (dtype == DType::kF64) c.rtol = c.atol = 1e-12;
  return c;
}

// The backward op alone (checked against the Jacobian reference, and CUDA against the CPU).
OpCase ln_backward_case(const std::string& name, const Shape& x) {
  OpCase c = ln_case(name, x, -2.0, 2.0);
  c.inputs.push_back(spec(x, -1.0, 1.0, false));
  c.run = [](const Tensors& in) {
    const ops::LayerNormResult f = ops::layer_norm(in[0], in[1], in[2], kEps);
    ops::LayerNormGrads g = ops::layer_norm_backward(in[3], in[0], in[1], f.mean, f.rstd);
    return Tensors{g.dx, g.dgamma, g.dbeta};
  };
  c.reference = naive_backward;
  c.graph = nullptr;  // the forward cases' gradient check covers graph::layer_norm
  c.rtol = 1e-4;      // dgamma/dbeta sum many f32 products
  c.atol = 1e-5;
  return c;
}

REALMT_OP_CASE(ln_rows) { return ln_case("layer_norm/rows", {6, 10}, -2, 2); }
REALMT_OP_CASE(ln_3d) { return ln_case("layer_norm/btd", {2, 3, 16}, -3, 1); }
REALMT_OP_CASE(ln_offset) {
  // |mean| >> std: the single-pass E[x^2] - E[x]^2 variance would lose every digit in f32,
  // and centering with the f32-rounded mean alone would be off by ~1e-4.
  OpCase c = ln_case("layer_norm/large_mean", {5, 12}, 300, 301);
  c.atol = 1e-5;
  return c;
}
REALMT_OP_CASE(ln_threads) {
  OpCase c = ln_case("layer_norm/wide_threaded", {24, 512}, -2, 2);
  c.grad_max_elements = 16;
  return c;
}
REALMT_OP_CASE(ln_many_rows) { return ln_case("layer_norm/many_rows", {3, 70, 4}, -2, 2); }
REALMT_OP_CASE(ln_f64) { return ln_case("layer_norm/f64", {7, 9}, -2, 2, DType::kF64); }
REALMT_OP_CASE(ln_backward) { return ln_backward_case("layer_norm_backward/rows", {9, 24}); }
REALMT_OP_CASE(ln_backward_blocks) {
  // More rows than reduction blocks (64), several threads.
  return ln_backward_case("layer_norm_backward/many_rows", {300, 96});
}

}  // namespace
}  // namespace realmt::test
