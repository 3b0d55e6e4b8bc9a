#include "case_util.h"
#include "graph/index_select.h"
#include "ops/index_select.h"

namespace realmt::test {
namespace {

Tensor naive_index_select(const Tensor& in, int axis, const Tensor& indices) {
  Host x(in);
  const int a = x.shape.normalize_axis(axis);
  const std::vector<int32_t> idx = indices.to_vector<int32_t>();
  Shape ys = x.shape;
  ys[a] = static_cast<int64_t>(idx.size());
  Host y{ys};
  for (int64_t f = 0; f < ys.numel(); ++f) {
    std::vector<int64_t> i = unravel(f, ys);
    i[a] = idx[i[a]];
    y.v[f] = x.v[broadcast_index(x.shape, i)];
  }
  return y.tensor();
}

OpCase index_select_case(const std::string& tag, Shape shape, int axis, std::vector<int32_t> idx) {
  OpCase c;
  c.name = "index_select/" + tag;
  InputSpec x, ix;
  x.shape = shape;
  ix.differentiable = false;
  ix.make = [idx](Generator&, DType) {
    return Tensor::from_vector(idx, Shape{static_cast<int64_t>(idx.size())});
  };
  c.inputs = {x, ix};
  c.run = [=](const Tensors& in) { return Tensors{ops::index_select(in[0], axis, in[1])}; };
  c.reference = [=](const Tensors& in) { return Tensors{naive_index_select(in[0], axis, in[1])}; };
  c.graph = [=](const std::vector<graph::Var>& v) {
    return graph::index_select(v[0], axis, v[1].value());
  };
  c.rtol = 0;
  c.atol = 1e-300;  // a copy: exact
  return c;
}

// Beam reordering: [B*K, T, D] rows picked by their surviving hypotheses (with repeats).
std::vector<int32_t> beam_order(int b, int k) {
  std::vector<int32_t> v;
  for (int s = 0; s < b; ++s)
    for (int j = 0; j < k; ++j) v.push_back(s * k + (j * 7 + s) % k / 2);
  return v;
}

bool register_all() {
  register_case([] { return index_select_case("beam_axis0", {12, 3, 8}, 0, beam_order(3, 4)); });
  register_case([] {
    return index_select_case("axis1_repeats", {2, 5, 3}, 1, {4, 0, 4, 4, 2, 1});
  });
  register_case([] { return index_select_case("last_axis", {3, 6}, -1, {5, 3, 1}); });
  register_case([] { return index_select_case("empty_indices", {4, 3}, 0, {}); });
  register_case([] { return index_select_case("rank1", {9}, 0, {8, 0, 8}); });
  register_case([] { return index_select_case("wide_rows", {6, 3000}, 0, {5, 5, 1, 0, 5}); });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

// The scatter-add on its own, repeated indices summed.
REALMT_OP_CASE(index_select_backward_case) {
  OpCase c;
  c.name = "index_select_backward/repeats";
  const Shape xs{3, 4, 5};
  const std::vector<int32_t> idx{3, 1, 3, 0, 3};
  InputSpec dy;
  dy.shape = Shape{3, 5, 5};
  c.inputs = {dy};
  c.run = [=](const Tensors& in) {
    return Tensors{ops::index_select_backward(
        in[0], xs, 1, Tensor::from_vector(idx, Shape{5}).to(in[0].device()))};
  };
  c.reference = [=](const Tensors& in) {
    Host g(in[0]);
    Host dx{xs};
    for (int64_t f = 0; f < g.shape.numel(); ++f) {
      std::vector<int64_t> i = unravel(f, g.shape);
      i[1] = idx[i[1]];
      dx.v[broadcast_index(xs, i)] += g.v[f];
    }
    return Tensors{dx.tensor()};
  };
  return c;
}

}  // namespace
}  // namespace realmt::test
