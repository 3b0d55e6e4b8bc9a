// Linear layer: y = x W + b, W [Din, Dout], b [Dout]; x [..., Din] -> y [..., Dout].
// Parameters: "<prefix>.weight", "<prefix>.bias" (when bias). A layer of `blocks` fused
// projections (Q|K|V: Dout = 3D) is initialised block by block (layers/init.h).
// project() leaves the bias out for a fused epilogue to add (ops/residual_norm, bias_activation).
#pragma once

#include <string>

#include "core/rng.h"
#include "graph/parameters.h"
#include "graph/var.h"

namespace realmt::layers {

class Linear {
 public:
  Linear() = default;
  Linear(graph::ParameterSet& params, const std::string& prefix, int64_t in, int64_t out, bool bias = true,
         int blocks = 1);

  graph::Var operator()(const graph::Var& x) const;  // x W + b (graph::linear)
  graph::Var project(const graph::Var& x) const;     // x W
  void init(Generator& gen) const;                   // Xavier uniform weight, zero bias
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
  int blocks_ = 1;
};

}  // namespace realmt::layers
