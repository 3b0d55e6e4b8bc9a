#include "layers/linear.h"

#include "graph/linear.h"
#include "layers/init.h"
#include "ops/elementwise.h"

namespace realmt::layers {

Linear::Linear(graph::ParameterSet& params, const std::string& prefix, int64_t in, int64_t out,
               bool bias, int blocks)
    : params_(&params), in_(in), out_(out) {
  weight_ = params.add(prefix + ".weight", {in, out}, xavier_uniform(blocks));
  if (bias) bias_ = params.add(prefix + ".bias", {out}, constant(0.0));
}

Linear::Linear(const graph::ParameterSet& params, int weight, int bias)
    : params_(&params), weight_(weight), bias_(bias) {
  const Shape& w = params.shapes().at(weight);
  REALMT_ASSERT(w.rank() == 2 && (bias < 0 || params.shapes().at(bias) == Shape({w[1]})));
  in_ = w[0];
  out_ = w[1];
}

graph::Var Linear::operator()(const graph::Var& x) const {
  REALMT_CHECK(x.dim(-1) == in_, "linear layer expects inputs [..., {}], got {}", in_, x.shape());
  if (quantized_) {
    Tensor y = project(x).value();
    if (has_bias()) ops::add_(y, bias().value());
    return graph::Var(y);
  }
  return graph::linear(x, weight(), bias_or_none());
}

graph::Var Linear::project(const graph::Var& x) const {
  REALMT_CHECK(x.dim(-1) == in_, "linear layer expects inputs [..., {}], got {}", in_, x.shape());
  if (quantized_) {
    REALMT_CHECK(!graph::grad_enabled() || !x.requires_grad(),
                 "an int8-quantized layer only decodes (no gradients)");
    return graph::Var(ops::quantized_matmul(x.value(), *quantized_));
  }
  return graph::linear(x, weight(), graph::Var());
}

void Linear::quantize(const Tensor& w) {
  REALMT_CHECK(!quantized_, "linear layer quantized twice");
  REALMT_CHECK(w.shape() == Shape({in_, out_}),
               "linear layer [{}, {}]: a weight of that shape to quantize, got {}", in_, out_, w);
  quantized_ = std::make_shared<const ops::QuantizedWeight>(
      ops::quantize_rows(w, ops::WeightLayout::kColumnsOut));
}

}  // namespace realmt::layers
