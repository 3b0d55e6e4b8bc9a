// Linear layer: y = x W + b, W [Din, Dout], b [Dout]; x [..., Din] -> y [..., Dout].
// Parameters: "<prefix>.weight", "<prefix>.bias" (when bias). A layer of `blocks` fused
// projections (Q|K|V: Dout = 3D) is initialised block by block (Xavier uniform, layers/init.h);
// the bias starts at zero.
// project() leaves the bias out for a fused epilogue to add (ops/residual_norm, bias_activation).
// A decoding model may quantize the weight (int8 per output column, ops/quantize.h): the layer
// then computes through ops::quantized_matmul, without gradients, and the f32 weight may be
// released by the model.
#pragma once

#include <memory>
#include <string>

#include "core/rng.h"
#include "graph/parameters.h"
#include "graph/var.h"
#include "ops/quantize.h"

namespace realmt::layers {

class Linear {
 public:
  Linear() = default;
  Linear(graph::ParameterSet& params, const std::string& prefix, int64_t in, int64_t out,
         bool bias = true, int blocks = 1);
  // Binds parameters already declared in `params` (a model's layout, models/layout.h): weight
  // [Din, Dout], bias [Dout] or -1 for none.
  Linear(const graph::ParameterSet& params, int weight, int bias);

  graph::Var operator()(const graph::Var& x) const;  // x W + b (graph::linear)
  graph::Var project(const graph::Var& x) const;     // x W
  // Quantizes w, this layer's weight as f32 [Din, Dout] (its parameter's value, or the same
  // tensor read from a checkpoint), to int8 per output column; the layer then computes with it
  // and the model may release the parameter (weight_index()).
  void quantize(const Tensor& w);
  int weight_index() const { return weight_; }
  bool quantized() const { return quantized_ != nullptr; }
  const graph::Var& weight() const { return (*params_)[weight_]; }
  bool has_bias() const { return bias_ >= 0; }
  const graph::Var& bias() const { return (*params_)[bias_]; }
  graph::Var bias_or_none() const { return has_bias() ? bias() : graph::Var(); }
  int64_t in() const { return in_; }
  int64_t out() const { return out_; }

 private:
  const graph::ParameterSet* params_ = nullptr;
  int weight_ = -1, bias_ = -1;
  int64_t in_ = 0, out_ = 0;
  std::shared_ptr<const ops::QuantizedWeight> quantized_;  // W^T as [Dout, Din] int8
};

}  // namespace realmt::layers
