#include <cmath>
#include <limits>

#include "case_util.h"
#include "graph/softmax.h"
#include "ops/softmax.h"

namespace realmt::test {
namespace {

// softmax(x + mask) row by row in doubles; mask broadcast over leading axes.
Tensors naive_softmax(const Tensors& in, bool log) {
  Host x(in[0]);
  const bool has_mask = in.size() > 1;
  Host m = has_mask ? Host(in[1]) : Host(Shape{1});
  const int64_t n = x.shape[-1], rows = x.shape.numel() / n;
  Host y(x.shape);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> z(n);
    double mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t flat = r * n + j;
      z[j] = x.v[flat] + (has_mask ? m.v[broadcast_index(m.shape, unravel(flat, x.shape))] : 0.0);
      mx = std::max(mx, z[j]);
    }
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += mx == -INFINITY ? 0 : std::exp(z[j] - mx);
    for (int64_t j = 0; j < n; ++j) {
      if (mx == -INFINITY)
        y.v[r * n + j] = log ? -INFINITY : 0.0;
      else
        y.v[r * n + j] = log ? z[j] - mx - std::log(s) : std::exp(z[j] - mx) / s;
    }
  }
  return {y.tensor()};
}

// An attention-style mask [B, 1, 1, S]: the last `pad` positions of batch b are -inf, and
// batch 0 is masked completely (a fully padded row).
Tensor padding_mask(Generator&, DType dt, int64_t batch, int64_t s) {
  Tensor m = Tensor::zeros({batch, 1, 1, s}, DType::kF64);
  double* p = m.data<double>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < s; ++j)
      if (b == 0 || j >= s - b) p[b * s + j] = -INFINITY;
  Tensor out = Tensor::empty(m.shape(), dt);
  visit_dtype(dt, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < m.numel(); ++i) out.data<T>()[i] = scalar_cast<T>(p[i]);
  });
  return out;
}

OpCase softmax_case(const std::string& name, bool log, bool masked, Shape x, double spread) {
  OpCase c;
  c.name = name;
  c.inputs = {{x, -spread, spread}};
  if (masked) {
    const int64_t b = x[0], s = x[-1];
    InputSpec m;
    m.differentiable = false;
    m.make = [b, s](Generator& g, DType dt) { return padding_mask(g, dt, b, s); };
    c.inputs.push_back(m);
  }
  c.run = [log](const Tensors& in) {
    const Tensor mask = in.size() > 1 ? in[1] : Tensor();
    return Tensors{log ? ops::log_softmax(in[0], mask) : ops::softmax(in[0], mask)};
  };
  c.reference = [log](const Tensors& in) { return naive_softmax(in, log); };
  c.graph = [log](const std::vector<graph::Var>& v) {
    const Tensor mask = v.size() > 1 ? v[1].value() : Tensor();
    if (!log) return graph::softmax(v[0], mask);
    // Fully masked rows are -inf in log space, which the gradient check's weighted sum cannot
    // take: the masked log case has no gradient check (below).
    return graph::log_softmax(v[0], mask);
  };
  if (masked && log)
    c.graph = nullptr;  // -inf outputs: gradient checked unmasked (log_softmax/plain)
  c.rtol = 1e-5;
  c.atol = 1e-6;
  return c;
}

REALMT_OP_CASE(softmax_plain) { return softmax_case("softmax/plain", false, false, {4, 9}, 3); }
REALMT_OP_CASE(softmax_large_logits) {
  return softmax_case("softmax/large_logits", false, false, {3, 40}, 80);
}
REALMT_OP_CASE(softmax_masked) {
  return softmax_case("softmax/masked", false, true, {3, 2, 4, 6}, 3);
}
REALMT_OP_CASE(softmax_vocab) {
  return softmax_case("softmax/vocab_rows", false, false, {8, 5000}, 5);
}
REALMT_OP_CASE(log_softmax_plain) {
  return softmax_case("log_softmax/plain", true, false, {4, 9}, 3);
}
REALMT_OP_CASE(log_softmax_masked) {
  return softmax_case("log_softmax/masked", true, true, {3, 2, 4, 6}, 3);
}
REALMT_OP_CASE(log_softmax_large) {
  return softmax_case("log_softmax/large_logits", true, false, {3, 40}, 80);
}

}  // namespace
}  // namespace realmt::test
