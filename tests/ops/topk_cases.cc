#include <algorithm>
#include <cmath>
#include <numeric>

#include "case_util.h"
#include "ops/topk.h"

namespace realmt::test {
namespace {

// Each row fully sorted by (value descending, position ascending); the first k kept.
Tensors naive_topk(const Tensor& in, int64_t k) {
  Host x(in);
  const int64_t n = x.shape[-1], rows = x.shape.numel() / n;
  Shape out = x.shape;
  out[-1] = k;
  Host values{out}, indices{out};
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    const double* row = x.v.data() + r * n;
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return row[a] > row[b]; });
    for (int64_t j = 0; j < k; ++j) {
      values.v[r * k + j] = row[order[j]];
      indices.v[r * k + j] = static_cast<double>(order[j]);
    }
  }
  return {values.tensor(), indices.tensor()};
}

// Scores with many exact ties: integers in [0, levels).
Tensor tied_scores(Generator& g, DType dt, const Shape& s, int levels) {
  Tensor t = Tensor::empty(s, dt);
  visit_dtype(dt, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<T>()[i] = scalar_cast<T>(std::floor(g.uniform() * levels));
  });
  return t;
}

OpCase topk_case(const std::string& tag, Shape shape, int64_t k, int tie_levels = 0,
                 DType dt = DType::kF32) {
  OpCase c;
  c.name = "topk/" + tag;
  c.dtype = dt;
  InputSpec x;
  x.shape = shape;
  x.lo = -20;
  x.hi = 20;
  if (tie_levels > 0)
    x.make = [=](Generator& g, DType d) { return tied_scores(g, d, shape, tie_levels); };
  c.inputs = {x};
  c.run = [k](const Tensors& in) {
    auto [v, i] = ops::topk(in[0], k);
    return Tensors{v, i};
  };
  c.reference = [k](const Tensors& in) { return naive_topk(in[0], k); };
  c.rtol = 0;
  c.atol = 1e-300;  // selection: exact
  return c;
}

bool register_all() {
  register_case([] { return topk_case("small", {3, 10}, 4); });
  register_case([] { return topk_case("k_equals_n", {2, 7}, 7); });
  register_case([] { return topk_case("k1", {5, 33}, 1); });
  register_case([] { return topk_case("ties", {4, 200}, 12, 3); });
  register_case([] { return topk_case("ties_k_all", {3, 40}, 40, 4); });
  register_case([] { return topk_case("rank3", {2, 3, 50}, 5); });
  register_case([] { return topk_case("beam_row", {1, 4 * 32000}, 8); });
  register_case([] { return topk_case("beam_batch", {6, 4 * 8000}, 8, 50); });
  register_case([] { return topk_case("f16_ties", {3, 100}, 6, 5, DType::kF16); });
  register_case([] { return topk_case("bf16", {3, 100}, 6, 0, DType::kBF16); });
  register_case([] { return topk_case("f64", {3, 100}, 6, 0, DType::kF64); });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

REALMT_OP_CASE(argmax_case) {
  OpCase c = topk_case("argmax", {4, 3, 70}, 1, 6);
  c.name = "argmax/ties";
  c.run = [](const Tensors& in) { return Tensors{ops::argmax(in[0])}; };
  c.reference = [](const Tensors& in) { return Tensors{naive_topk(in[0], 1)[1].reshape({4, 3})}; };
  return c;
}

}  // namespace
}  // namespace realmt::test
