#include <cmath>

#include "case_util.h"
#include "graph/unary.h"
#include "ops/unary.h"

namespace realmt::test {
namespace {

struct UnaryOp {
  const char* name;
  Tensor (*op)(const Tensor&);
  graph::Var (*gop)(const graph::Var&);
  double (*f)(double);
  double lo, hi;
};

double gelu_ref(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double swish_ref(double x) { return x / (1.0 + std::exp(-x)); }

const UnaryOp kOps[] = {
    {"relu", ops::relu, graph::relu, [](double x) { return x > 0 ? x : 0.0; }, -2, 2},
    {"gelu", ops::gelu, graph::gelu, gelu_ref, -4, 4},
    {"swish", ops::swish, graph::swish, swish_ref, -6, 6},
    {"exp", ops::exp, graph::exp, [](double x) { return std::exp(x); }, -10, 10},
    {"log", ops::log, graph::log, [](double x) { return std::log(x); }, 0.01, 50},
    {"sqrt", ops::sqrt, graph::sqrt, [](double x) { return std::sqrt(x); }, 0.01, 50},
};

bool register_all() {
  for (const UnaryOp& op : kOps) {
    for (const Shape& shape : {Shape{7, 9}, Shape{3, 50000}}) {
      register_case([op, shape] {
        OpCase c;
        c.name = std::string(op.name) + "/" + (shape.numel() > 1000 ? "threaded" : "small");
        c.inputs = {{shape, op.lo, op.hi}};
        c.run = [op](const Tensors& in) { return Tensors{op.op(in[0])}; };
        c.reference = [op](const Tensors& in) {
          Host x(in[0]);
          for (double& v : x.v) v = op.f(v);
          return Tensors{x.tensor()};
        };
        c.graph = [op](const std::vector<graph::Var>& v) { return op.gop(v[0]); };
        c.rtol = 4e-6;  // fast_exp is within 2 ulp
        c.grad_max_elements = 24;
        return c;
      });
    }
  }
  return true;
}
[[maybe_unused]] const bool registered = register_all();

REALMT_OP_CASE(scale_case) {
  OpCase c;
  c.name = "scale/negative";
  c.inputs = {{{4, 5}}};
  c.run = [](const Tensors& in) { return Tensors{ops::scale(in[0], -0.37)}; };
  c.reference = [](const Tensors& in) {
    Host x(in[0]);
    for (double& v : x.v) v *= -0.37;
    return Tensors{x.tensor()};
  };
  c.graph = [](const std::vector<graph::Var>& v) { return graph::scale(v[0], -0.37); };
  return c;
}

}  // namespace
}  // namespace realmt::test
