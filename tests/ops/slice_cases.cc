#include "case_util.h"
#include "graph/slice.h"
#include "ops/slice.h"

namespace realmt::test {
namespace {

// y[i] = x[i with i[axis] + begin], element by element.
Tensor naive_slice(const Tensor& in, int axis, int64_t begin, int64_t end) {
  Host x(in);
  const int a = x.shape.normalize_axis(axis);
  Shape ys = x.shape;
  ys[a] = end - begin;
  Host y{ys};
  for (int64_t f = 0; f < ys.numel(); ++f) {
    std::vector<int64_t> i = unravel(f, ys);
    i[a] += begin;
    y.v[f] = x.v[broadcast_index(x.shape, i)];
  }
  return y.tensor();
}

OpCase slice_case(const std::string& tag, Shape shape, int axis, int64_t begin, int64_t end,
                  bool integer = false) {
  OpCase c;
  c.name = "slice/" + tag;
  InputSpec x;
  x.shape = shape;
  if (integer) {
    x.integer = true;
    x.lo = -1000;
    x.hi = 1000;
  }
  c.inputs = {x};
  c.run = [=](const Tensors& in) { return Tensors{ops::slice(in[0], axis, begin, end)}; };
  c.reference = [=](const Tensors& in) { return Tensors{naive_slice(in[0], axis, begin, end)}; };
  if (!integer)
    c.graph = [=](const std::vector<graph::Var>& v) {
      return graph::slice(v[0], axis, begin, end);
    };
  c.rtol = 0;
  c.atol = 1e-300;  // a copy: exact
  return c;
}

bool register_all() {
  register_case([] { return slice_case("axis0", {6, 3, 4}, 0, 1, 4); });
  register_case([] { return slice_case("axis1_middle", {2, 9, 5}, 1, 3, 7); });
  register_case([] { return slice_case("last_axis_negative", {3, 4, 10}, -1, 2, 9); });
  register_case([] { return slice_case("whole", {4, 5}, 1, 0, 5); });
  register_case([] { return slice_case("empty", {3, 6, 2}, 1, 4, 4); });
  register_case([] { return slice_case("rank1", {11}, 0, 10, 11); });
  register_case([] { return slice_case("big_rows", {300, 256}, 1, 128, 256); });
  register_case([] { return slice_case("i32", {4, 7, 3}, -2, 2, 5, true); });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

// dx = zeros with dy written into rows [begin, begin + M).
REALMT_OP_CASE(slice_backward_case) {
  OpCase c;
  c.name = "slice_backward/axis1";
  const Shape xs{2, 7, 4};
  InputSpec dy;
  dy.shape = Shape{2, 3, 4};
  c.inputs = {dy};
  c.run = [=](const Tensors& in) { return Tensors{ops::slice_backward(in[0], xs, 1, 2)}; };
  c.reference = [=](const Tensors& in) {
    Host dy(in[0]);
    Host dx{xs};
    for (int64_t f = 0; f < xs.numel(); ++f) {
      std::vector<int64_t> i = unravel(f, xs);
      if (i[1] < 2 || i[1] >= 5) continue;
      i[1] -= 2;
      dx.v[f] = dy.v[broadcast_index(dy.shape, i)];
    }
    return Tensors{dx.tensor()};
  };
  c.rtol = 0;
  c.atol = 1e-300;
  return c;
}

}  // namespace
}  // namespace realmt::test
