// Linear layer: y = x W + b, W [Din, Dout], b [Dout]; x [..., Din] -> y [..., Dout].
// Parameters: "<prefix>.weight", "<prefix>.bias" (when bias).
#pragma once

#include <string>

#include "core/rng.h"
#include "graph/parameters.h"
#include "graph/var.h"

namespace realmt::layers {

class Linear {
 public:
  Linear() = default;
  Linear(graph::ParameterSet& params, const std::string& prefix, int64_t in, int64_t out, bool bias = true);

  graph::Var operator()(const graph::Var& x) const;
  void init(Generator& gen) const;  // Xavier uniform weight, zero bias
  const graph::Var& weight() const { return (*params_)[weight_]; }
  bool has_bias() const { return bias_ >= 0; }
  const graph::Var& bias() const { return (*params_)[bias_]; }
  int64_t in() const { return in_; }
  int64_t out() const { return out_; }

 private:
  const graph::ParameterSet* params_ = nullptr;
  int weight_ = -1, bias_ = -1;
  int64_t in_ = 0, out_ = 0;
};

}  // namespace realmt::layers
