#include "case_util.h"
#include "graph/concat.h"
#include "ops/concat.h"

namespace realmt::test {
namespace {

// y[i] = xs[k][i with i[axis] - offset_k] for the k whose rows hold i[axis].
Tensor naive_concat(const Tensors& in, int axis) {
  const int a = in[0].shape().normalize_axis(axis);
  Shape ys = in[0].shape();
  ys[a] = 0;
  for (const Tensor& t : in) ys[a] += t.dim(a);
  Host y{ys};
  for (int64_t f = 0; f < ys.numel(); ++f) {
    std::vector<int64_t> i = unravel(f, ys);
    size_t k = 0;
    while (i[a] >= in[k].dim(a)) i[a] -= in[k++].dim(a);
    Host x(in[k]);
    y.v[f] = x.v[broadcast_index(x.shape, i)];
  }
  return y.tensor();
}

OpCase concat_case(const std::string& tag, std::vector<Shape> shapes, int axis) {
  OpCase c;
  c.name = "concat/" + tag;
  for (const Shape& s : shapes) {
    InputSpec in;
    in.shape = s;
    c.inputs.push_back(in);
  }
  c.run = [=](const Tensors& in) { return Tensors{ops::concat(in, axis)}; };
  c.reference = [=](const Tensors& in) { return Tensors{naive_concat(in, axis)}; };
  c.graph = [=](const std::vector<graph::Var>& v) { return graph::concat(v, axis); };
  c.rtol = 0;
  c.atol = 1e-300;  // a copy: exact
  return c;
}

bool register_all() {
  register_case([] { return concat_case("axis0_two", {{2, 3}, {4, 3}}, 0); });
  register_case([] { return concat_case("axis1_three", {{2, 1, 4}, {2, 3, 4}, {2, 2, 4}}, 1); });
  register_case([] { return concat_case("last_negative", {{3, 2, 5}, {3, 2, 1}}, -1); });
  register_case([] { return concat_case("with_empty", {{2, 0, 3}, {2, 4, 3}, {2, 0, 3}}, 1); });
  register_case([] { return concat_case("single", {{3, 4}}, 0); });
  register_case([] { return concat_case("rank1", {{5}, {2}, {7}}, 0); });
  register_case([] { return concat_case("big", {{256, 100}, {256, 156}}, 1); });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

}  // namespace
}  // namespace realmt::test
