#include "layers/feed_forward.h"

#include "graph/dropout.h"
#include "graph/unary.h"

namespace realmt::layers {

Activation parse_activation(const std::string& name) {
  if (name == "relu") return Activation::kRelu;
  if (name == "gelu") return Activation::kGelu;
  if (name == "swish") return Activation::kSwish;
  REALMT_FAIL("unknown activation '{}' (use relu, gelu or swish)", name);
}

FeedForward::FeedForward(graph::ParameterSet& params, const std::string& prefix, int64_t dim, int64_t ffn_dim,
                         Activation activation)
    : w1_(params, prefix + ".w1", dim, ffn_dim), w2_(params, prefix + ".w2", ffn_dim, dim), activation_(activation) {}

graph::Var FeedForward::operator()(const graph::Var& x, double dropout, Generator* gen) const {
  graph::Var h = w1_(x);
  switch (activation_) {
    case Activation::kRelu: h = graph::relu(h); break;
    case Activation::kGelu: h = graph::gelu(h); break;
    case Activation::kSwish: h = graph::swish(h); break;
  }
  if (gen && dropout > 0) h = graph::dropout(h, dropout, *gen);
  return w2_(h);
}

void FeedForward::init(Generator& gen) const {
  w1_.init(gen);
  w2_.init(gen);
}

}  // namespace realmt::layers
