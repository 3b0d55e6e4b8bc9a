#include <algorithm>
#include <cmath>

#include "case_util.h"
#include "graph/cross_entropy.h"
#include "ops/cross_entropy.h"

namespace realmt::test {
namespace {

// Targets [N] in [0, V); every third row (from row 1) is padding (= ignore_index) when pads.
Tensor make_targets(Generator& g, int64_t n, int64_t v, bool pads, int32_t ignore_index) {
  std::vector<int32_t> t(n);
  for (int64_t i = 0; i < n; ++i) {
    t[i] = static_cast<int32_t>(std::min<double>(v - 1, std::floor(g.uniform() * v)));
    if (pads && i % 3 == 1) t[i] = ignore_index;
  }
  return Tensor::from_vector(t, Shape{n});
}

// The textbook definition in doubles: log p = x - lse, loss = -sum_j q_j log p_j.
struct NaiveRow {
  std::vector<double> logp;
  double lse = 0;
};
NaiveRow naive_row(const double* x, int64_t v) {
  NaiveRow r;
  double m = -INFINITY;
  for (int64_t j = 0; j < v; ++j) m = std::max(m, x[j]);
  double s = 0;
  for (int64_t j = 0; j < v; ++j) s += std::exp(x[j] - m);
  r.lse = m + std::log(s);
  for (int64_t j = 0; j < v; ++j) r.logp.push_back(x[j] - r.lse);
  return r;
}
double q_of(int64_t j, int32_t t, int64_t v, double eps) {
  return eps / v + (j == t ? 1.0 - eps : 0.0);
}

Tensors naive_forward(const Tensors& in, const ops::CrossEntropyOptions& o) {
  Host x(in[0]);
  const std::vector<int32_t> t = in[1].to_vector<int32_t>();
  const int64_t v = x.shape[-1], n = static_cast<int64_t>(t.size());
  Host loss(Shape{n}), lse(Shape{n});
  for (int64_t i = 0; i < n; ++i) {
    const NaiveRow r = naive_row(&x.v[i * v], v);
    lse.v[i] = r.lse;
    if (t[i] == o.ignore_index) continue;
    for (int64_t j = 0; j < v; ++j) loss.v[i] -= q_of(j, t[i], v, o.label_smoothing) * r.logp[j];
  }
  return {loss.tensor(), lse.tensor()};
}

Tensors naive_backward(const Tensors& in, const ops::CrossEntropyOptions& o) {
  Host x(in[0]), g(in[2]);
  const std::vector<int32_t> t = in[1].to_vector<int32_t>();
  const int64_t v = x.shape[-1], n = static_cast<int64_t>(t.size());
  Host dx(x.shape);
  for (int64_t i = 0; i < n; ++i) {
    if (t[i] == o.ignore_index) continue;
    const NaiveRow r = naive_row(&x.v[i * v], v);
    for (int64_t j = 0; j < v; ++j)
      dx.v[i * v + j] = g.v[i] * (std::exp(r.logp[j]) - q_of(j, t[i], v, o.label_smoothing));
  }
  return {dx.tensor()};
}

OpCase ce_case(const std::string& name, int64_t n, int64_t v, double spread,
               ops::CrossEntropyOptions o, bool pads = true, DType dtype = DType::kF32) {
  OpCase c;
  c.name = name;
  c.dtype = dtype;
  InputSpec targets;
  targets.differentiable = false;
  targets.make = [=](Generator& g, DType) { return make_targets(g, n, v, pads, o.ignore_index); };
  InputSpec x;
  x.shape = Shape{n, v};
  x.lo = -spread;
  x.hi = spread;
  c.inputs = {x, targets};
  c.run = [o](const Tensors& in) {
    ops::CrossEntropyResult r = ops::cross_entropy(in[0], in[1], o);
    return Tensors{r.loss, r.lse};
  };
  c.reference = [o](const Tensors& in) { return naive_forward(in, o); };
  c.graph = [o](const std::vector<graph::Var>& x) {
    return graph::cross_entropy(x[0], x[1].value(), o);
  };
  return c;
}

// The backward op alone (f32, and on CUDA against the CPU), fed an arbitrary dloss.
OpCase ce_backward_case(const std::string& name, int64_t n, int64_t v, double spread,
                        ops::CrossEntropyOptions o) {
  OpCase c = ce_case(name, n, v, spread, o);
  InputSpec dloss;
  dloss.shape = Shape{n};
  dloss.lo = -1.0;
  dloss.differentiable = false;
  c.inputs.push_back(dloss);
  c.run = [o](const Tensors& in) {
    const Tensor lse = ops::cross_entropy(in[0], in[1], o).lse;
    return Tensors{ops::cross_entropy_backward(in[2], in[0], in[1], lse, o)};
  };
  c.reference = [o](const Tensors& in) { return naive_backward(in, o); };
  c.graph = nullptr;  // the gradient check of the forward cases covers the rule
  return c;
}

REALMT_OP_CASE(ce_plain) { return ce_case("cross_entropy/plain_padded", 9, 11, 3, {}); }
REALMT_OP_CASE(ce_smoothed) {
  return ce_case("cross_entropy/smoothed_padded", 9, 11, 3, {.label_smoothing = 0.1});
}
REALMT_OP_CASE(ce_no_ignore) {
  // ignore_index outside the vocabulary: target 0 is an ordinary class, no row is skipped.
  return ce_case("cross_entropy/no_ignore", 7, 6, 3, {.label_smoothing = 0.1, .ignore_index = -1},
                 false);
}
REALMT_OP_CASE(ce_large_logits) {
  // Offsets of +-80: the z = x - max form must not cancel.
  OpCase c = ce_case("cross_entropy/large_logits", 6, 40, 80, {.label_smoothing = 0.1});
  c.atol = 1e-5;
  return c;
}
REALMT_OP_CASE(ce_vocab) {
  OpCase c = ce_case("cross_entropy/vocab_rows", 8, 5000, 5, {.label_smoothing = 0.1});
  c.grad_max_elements = 24;
  return c;
}
REALMT_OP_CASE(ce_f64) {
  OpCase c = ce_case("cross_entropy/f64", 9, 13, 4, {.label_smoothing = 0.2, .ignore_index = 3},
                     true, DType::kF64);
  c.rtol = 1e-12;
  c.atol = 1e-12;
  return c;
}
REALMT_OP_CASE(ce_backward_plain) {
  return ce_backward_case("cross_entropy_backward/plain_padded", 9, 11, 3, {});
}
REALMT_OP_CASE(ce_backward_smoothed) {
  return ce_backward_case("cross_entropy_backward/smoothed_vocab", 6, 3000, 5,
                          {.label_smoothing = 0.1});
}

}  // namespace
}  // namespace realmt::test
