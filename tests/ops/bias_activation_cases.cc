// Cases of the fused bias + activation + dropout (ops/bias_activation.h).
#include <cmath>

#include "case_util.h"
#include "core/rng.h"
#include "graph/bias_activation.h"
#include "ops/bias_activation.h"

namespace realmt::test {
namespace {

constexpr uint64_t kSeed = 8, kOffset = 5;

double act(ops::Activation a, double x) {
  switch (a) {
    case ops::Activation::kRelu: return x > 0 ? x : 0;
    case ops::Activation::kGelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case ops::Activation::kSwish: return x / (1 + std::exp(-x));
    case ops::Activation::kGeluSigmoid: return x / (1 + std::exp(-1.702 * x));
  }
  return x;
}

OpCase make(const std::string& name, ops::Activation a, bool bias, double dropout,
            Shape y = {3, 5, 7}) {
  OpCase c;
  c.name = "bias_activation/" + name;
  c.inputs = {spec(y, -2, 2)};
  if (bias) c.inputs.push_back(spec(Shape{y[-1]}, -1, 1));
  ops::BiasActivationOptions o;
  o.activation = a;
  o.dropout = dropout;
  o.seed = kSeed;
  o.offset = kOffset;
  c.run = [o, bias](const Tensors& in) {
    return Tensors{ops::bias_activation(in[0], bias ? in[1] : Tensor(), o)};
  };
  c.reference = [o, bias](const Tensors& in) {
    Host y(in[0]);
    const int64_t f = y.shape[-1];
    const Host b = bias ? Host(in[1]) : Host(Shape{f}, 0.0);
    Host h(y.shape);
    for (size_t e = 0; e < y.v.size(); ++e) {
      double v = act(o.activation, y.v[e] + b.v[e % f]);
      if (o.dropout > 0) {
        const double u = u32_to_unit_float(philox_u32(kSeed, kOffset + e));
        v = u >= o.dropout ? v / (1.0 - o.dropout) : 0.0;
      }
      h.v[e] = v;
    }
    return Tensors{h.tensor()};
  };
  c.graph = [o, bias](const std::vector<graph::Var>& v) {
    Generator gen(kSeed);
    gen.set_state(kSeed, kOffset);
    return graph::bias_activation(v[0], bias ? v[1] : graph::Var(), o, &gen);
  };
  c.rtol = 1e-5;
  c.atol = 1e-6;
  return c;
}

REALMT_OP_CASE(bias_relu) { return make("relu_bias", ops::Activation::kRelu, true, 0.0); }
REALMT_OP_CASE(bias_relu_dropout) {
  return make("relu_dropout", ops::Activation::kRelu, true, 0.25);
}
REALMT_OP_CASE(bias_gelu) { return make("gelu_dropout", ops::Activation::kGelu, true, 0.1); }
REALMT_OP_CASE(bias_gelu_sigmoid) {
  return make("gelu_sigmoid_bias", ops::Activation::kGeluSigmoid, true, 0.0);
}
REALMT_OP_CASE(bias_swish) { return make("swish_no_bias", ops::Activation::kSwish, false, 0.0); }
REALMT_OP_CASE(bias_relu_threaded) {
  OpCase c = make("relu_threaded", ops::Activation::kRelu, true, 0.1, {64, 1024});
  c.graph = nullptr;
  return c;
}

}  // namespace
}  // namespace realmt::test
