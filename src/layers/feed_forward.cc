#include "layers/feed_forward.h"

#include "graph/bias_activation.h"

namespace realmt::layers {

FeedForward::FeedForward(graph::ParameterSet& params, const std::string& prefix, int64_t dim,
                         int64_t ffn_dim, Activation activation)
    : w1_(params, prefix + ".w1", dim, ffn_dim),
      w2_(params, prefix + ".w2", ffn_dim, dim),
      activation_(activation) {}

graph::Var FeedForward::operator()(const graph::Var& x, double dropout, Generator* gen) const {
  ops::BiasActivationOptions o;
  o.activation = activation_;
  o.dropout = gen ? dropout : 0.0;
  const graph::Var h = graph::bias_activation(w1_.project(x), w1_.bias_or_none(), o, gen);
  return w2_.project(h);
}

}  // namespace realmt::layers
