#include <cmath>

#include "case_util.h"
#include "graph/reduce.h"
#include "ops/reduce.h"

namespace realmt::test {
namespace {

enum class Kind { kSum, kMean, kMax };

Tensors naive_reduce(const Tensors& in, int axis, bool keepdim, Kind kind) {
  Host x(in[0]);
  const int a = x.shape.normalize_axis(axis);
  const int64_t outer = x.shape.outer(a), n = x.shape[a], inner = x.shape.inner(a);
  std::vector<int64_t> d = x.shape.vec();
  if (keepdim)
    d[a] = 1;
  else
    d.erase(d.begin() + a);
  Host y{Shape(d)};
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double acc = kind == Kind::kMax ? -INFINITY : 0.0;
      for (int64_t j = 0; j < n; ++j) {
        const double v = x.v[(o * n + j) * inner + i];
        acc = kind == Kind::kMax ? std::max(acc, v) : acc + v;
      }
      y.v[o * inner + i] = kind == Kind::kMean ? acc / n : acc;
    }
  return {y.tensor()};
}

OpCase reduce_case(Kind kind, int axis, bool keepdim, Shape shape) {
  const char* names[] = {"sum", "mean", "max"};
  OpCase c;
  c.name = std::string(names[int(kind)]) + "/axis" + (axis < 0 ? "m" : "") +
           std::to_string(std::abs(axis)) + (keepdim ? "_keepdim" : "") + "_" +
           std::to_string(shape.numel());
  c.inputs = {{shape}};
  c.run = [=](const Tensors& in) {
    const ops::ReduceOptions o{.keepdim = keepdim};
    switch (kind) {
      case Kind::kSum: return Tensors{ops::sum(in[0], axis, o)};
      case Kind::kMean: return Tensors{ops::mean(in[0], axis, o)};
      case Kind::kMax: return Tensors{ops::max(in[0], axis, o)};
    }
    return Tensors{};
  };
  c.reference = [=](const Tensors& in) { return naive_reduce(in, axis, keepdim, kind); };
  c.graph = [=](const std::vector<graph::Var>& v) {
    const ops::ReduceOptions o{.keepdim = keepdim};
    switch (kind) {
      case Kind::kSum: return graph::sum(v[0], axis, o);
      case Kind::kMean: return graph::mean(v[0], axis, o);
      case Kind::kMax: return graph::max(v[0], axis, o);
    }
    return graph::Var();
  };
  c.rtol = 2e-5;
  c.atol = 1e-5;
  return c;
}

bool register_all() {
  for (Kind k : {Kind::kSum, Kind::kMean, Kind::kMax}) {
    register_case([k] { return reduce_case(k, -1, false, {4, 5, 6}); });
    register_case([k] { return reduce_case(k, 1, true, {4, 5, 6}); });
    register_case([k] { return reduce_case(k, 0, false, {4, 5, 6}); });
    register_case([k] { return reduce_case(k, -1, false, {64, 4000}); });
    register_case([k] { return reduce_case(k, 0, false, {500, 300}); });
  }
  return true;
}
[[maybe_unused]] const bool registered = register_all();

REALMT_OP_CASE(sum_all_case) {
  OpCase c;
  c.name = "sum_all/3d";
  c.inputs = {{{3, 4, 5}}};
  c.run = [](const Tensors& in) { return Tensors{ops::sum_all(in[0])}; };
  c.reference = [](const Tensors& in) {
    Host x(in[0]);
    double s = 0;
    for (double v : x.v) s += v;
    return Tensors{f64_tensor(Shape{}, {s})};
  };
  c.graph = [](const std::vector<graph::Var>& v) { return graph::sum_all(v[0]); };
  return c;
}

}  // namespace
}  // namespace realmt::test
