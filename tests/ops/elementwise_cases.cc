#include "case_util.h"
#include "graph/elementwise.h"
#include "ops/elementwise.h"

namespace realmt::test {
namespace {

template <typename F>
Tensors naive_binary(const Tensors& in, F f) {
  Host a(in[0]), b(in[1]);
  const Shape out = broadcast_shapes(a.shape, b.shape);
  Host c(out);
  for (int64_t i = 0; i < out.numel(); ++i) {
    const auto idx = unravel(i, out);
    c.v[i] = f(a.v[broadcast_index(a.shape, idx)], b.v[broadcast_index(b.shape, idx)]);
  }
  return {c.tensor()};
}

struct BinaryOp {
  const char* name;
  Tensor (*op)(const Tensor&, const Tensor&);
  graph::Var (*gop)(const graph::Var&, const graph::Var&);
  double (*f)(double, double);
};

const BinaryOp kOps[] = {
    {"add", ops::add, graph::add, [](double x, double y) { return x + y; }},
    {"sub", ops::sub, graph::sub, [](double x, double y) { return x - y; }},
    {"mul", ops::mul, graph::mul, [](double x, double y) { return x * y; }},
    {"div", ops::div, graph::div, [](double x, double y) { return x / y; }},
};

OpCase binary_case(const BinaryOp& op, const std::string& variant, Shape a, Shape b) {
  OpCase c;
  c.name = std::string(op.name) + "/" + variant;
  c.inputs = {{a}, {b}};
  if (std::string(op.name) == "div") c.inputs[1].lo = 0.5;  // keep the divisor away from 0
  c.run = [op](const Tensors& in) { return Tensors{op.op(in[0], in[1])}; };
  c.reference = [op](const Tensors& in) { return naive_binary(in, op.f); };
  c.graph = [op](const std::vector<graph::Var>& v) { return op.gop(v[0], v[1]); };
  return c;
}

// Every operator on every broadcasting pattern the model uses.
bool register_all() {
  const std::vector<std::tuple<std::string, Shape, Shape>> shapes = {
      {"same", {3, 4, 5}, {3, 4, 5}},      {"row", {3, 4, 5}, {5}},
      {"column", {3, 4, 5}, {3, 4, 1}},    {"middle", {3, 4, 5}, {3, 1, 5}},
      {"both_ways", {3, 1, 5}, {1, 4, 1}}, {"scalar", {2, 3}, {1}},
      {"lhs_broadcast", {5}, {2, 3, 5}},   {"big_same", {64, 300}, {64, 300}},
  };
  for (const BinaryOp& op : kOps)
    for (const auto& [variant, a, b] : shapes)
      register_case([op, variant, a, b] { return binary_case(op, variant, a, b); });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

REALMT_OP_CASE(add_inplace) {
  OpCase c;
  c.name = "add_/broadcast";
  c.inputs = {{{4, 6}}, {{6}}};
  c.run = [](const Tensors& in) {
    Tensor dst = in[0].clone();
    ops::add_(dst, in[1]);
    return Tensors{dst};
  };
  c.reference = [](const Tensors& in) {
    return naive_binary(in, [](double x, double y) { return x + y; });
  };
  return c;
}

}  // namespace
}  // namespace realmt::test
