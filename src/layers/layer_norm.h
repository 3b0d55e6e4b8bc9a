// Layer normalisation over the last axis: y = (x - mean) / sqrt(var + eps) * gamma + beta.
// Parameters: "<prefix>.gamma" [D] (init 1), "<prefix>.beta" [D] (init 0).
#pragma once

#include <string>

#include "core/rng.h"
#include "graph/parameters.h"
#include "graph/var.h"

namespace realmt::layers {

class LayerNorm {
 public:
  static constexpr double kEps = 1e-5;
  LayerNorm() = default;
  LayerNorm(graph::ParameterSet& params, const std::string& prefix, int64_t dim, double eps = kEps);
  // Binds gamma and beta already declared in `params` (a model's layout, models/layout.h).
  LayerNorm(const graph::ParameterSet& params, int gamma, int beta, double eps)
      : params_(&params), gamma_(gamma), beta_(beta), eps_(eps) {}
  graph::Var operator()(const graph::Var& x) const;
  const graph::Var& gamma() const { return (*params_)[gamma_]; }
  const graph::Var& beta() const { return (*params_)[beta_]; }
  double eps() const { return eps_; }

 private:
  const graph::ParameterSet* params_ = nullptr;
  int gamma_ = -1, beta_ = -1;
  double eps_ = kEps;
};

}  // namespace realmt::layers
