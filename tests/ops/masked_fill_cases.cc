#include <cmath>

#include "case_util.h"
#include "graph/masked_fill.h"
#include "ops/masked_fill.h"

namespace realmt::test {
namespace {

// A u8 mask of shape s with about a third of its entries set.
Tensor random_mask(Generator& g, const Shape& s) {
  std::vector<uint8_t> v(s.numel());
  for (auto& e : v) e = g.uniform() < 0.35f ? 1 : 0;
  return Tensor::from_vector(v, s);
}

Tensor naive_masked_fill(const Tensor& xt, const Tensor& mt, double value) {
  Host x(xt), m(mt);
  Host y{x.shape};
  for (int64_t f = 0; f < x.shape.numel(); ++f)
    y.v[f] = m.v[broadcast_index(m.shape, unravel(f, x.shape))] != 0 ? value : x.v[f];
  return y.tensor();
}

OpCase masked_fill_case(const std::string& tag, Shape xs, Shape ms, double value) {
  OpCase c;
  c.name = "masked_fill/" + tag;
  InputSpec x, m;
  x.shape = xs;
  m.differentiable = false;
  m.make = [ms](Generator& g, DType) { return random_mask(g, ms); };
  c.inputs = {x, m};
  c.run = [=](const Tensors& in) { return Tensors{ops::masked_fill(in[0], in[1], value)}; };
  c.reference = [=](const Tensors& in) { return Tensors{naive_masked_fill(in[0], in[1], value)}; };
  // -inf outputs would make the gradient check's weighted sum infinite.
  if (std::isfinite(value))
    c.graph = [=](const std::vector<graph::Var>& v) {
      return graph::masked_fill(v[0], v[1].value(), value);
    };
  c.rtol = 0;
  c.atol = 1e-300;  // a selection: exact
  return c;
}

bool register_all() {
  register_case([] { return masked_fill_case("same_shape", {4, 7}, {4, 7}, 3.5); });
  register_case([] { return masked_fill_case("padding_B11S", {3, 2, 4, 9}, {3, 1, 1, 9}, -1e4); });
  register_case([] { return masked_fill_case("neg_inf", {3, 2, 4, 9}, {3, 1, 1, 9}, -INFINITY); });
  register_case([] { return masked_fill_case("causal_TS", {2, 3, 6, 6}, {6, 6}, 0.0); });
  register_case([] { return masked_fill_case("per_row_B1_1", {5, 1, 40}, {5, 1, 1}, -2.0); });
  register_case([] { return masked_fill_case("big", {64, 1000}, {1000}, 7.0); });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

}  // namespace
}  // namespace realmt::test
