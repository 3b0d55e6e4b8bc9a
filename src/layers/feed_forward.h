// Position-wise feed-forward: y = dropout(act(x W1 + b1)) W2 (+ b2, which the sub-layer epilogue
// adds: output().bias()); x [B, T, D] -> [B, T, D], W1 [D, F], W2 [F, D]. Bias, activation and
// dropout are one fused op (ops/bias_activation.h). Parameters "<prefix>.w1.*", "<prefix>.w2.*".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "layers/linear.h"
#include "ops/bias_activation.h"

namespace realmt::layers {

using Activation = ops::Activation;  // named relu, gelu, swish (ops/bias_activation.h)

class FeedForward {
 public:
  FeedForward() = default;
  FeedForward(graph::ParameterSet& params, const std::string& prefix, int64_t dim, int64_t ffn_dim,
              Activation activation);
  FeedForward(Linear w1, Linear w2, Activation activation)
      : w1_(std::move(w1)), w2_(std::move(w2)), activation_(activation) {}
  // dropout > 0 needs gen (training); gen == nullptr means no dropout (inference).
  graph::Var operator()(const graph::Var& x, double dropout, Generator* gen) const;
  const Linear& output() const { return w2_; }
  // Both projections, for int8 quantization (layers/linear.h).
  std::vector<Linear*> linears() { return {&w1_, &w2_}; }

 private:
  Linear w1_, w2_;
  Activation activation_ = Activation::kRelu;
};

}  // namespace realmt::layers
