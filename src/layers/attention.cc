#include "layers/attention.h"

#include <cmath>

#include "graph/dropout.h"
#include "graph/elementwise.h"
#include "graph/matmul.h"
#include "graph/permute.h"
#include "graph/softmax.h"
#include "graph/unary.h"

namespace realmt::layers {

ResidualMode parse_residual_mode(const std::string& name) {
  if (name == "none") return ResidualMode::kNone;
  if (name == "sum") return ResidualMode::kSum;
  if (name == "mean") return ResidualMode::kMean;
  REALMT_FAIL("unknown residual attention mode '{}' (use none, sum or mean)", name);
}

const char* residual_mode_name(ResidualMode mode) {
  switch (mode) {
    case ResidualMode::kNone: return "none";
    case ResidualMode::kSum: return "sum";
    case ResidualMode::kMean: return "mean";
  }
  return "?";
}

MultiHeadAttention::MultiHeadAttention(graph::ParameterSet& params, const std::string& prefix, int64_t dim,
                                       int64_t heads)
    : q_(params, prefix + ".q", dim, dim),
      k_(params, prefix + ".k", dim, dim),
      v_(params, prefix + ".v", dim, dim),
      o_(params, prefix + ".o", dim, dim),
      dim_(dim),
      heads_(heads) {
  REALMT_CHECK(heads > 0 && dim % heads == 0, "transformer-heads ({}) must divide dim-emb ({})", heads, dim);
}

graph::Var MultiHeadAttention::split_heads(const graph::Var& x) const {
  return graph::permute(graph::reshape(x, {x.dim(0), x.dim(1), heads_, head_dim()}), {0, 2, 1, 3});
}

std::pair<graph::Var, graph::Var> MultiHeadAttention::keys_values(const graph::Var& kv_in) const {
  return {split_heads(k_(kv_in)), split_heads(v_(kv_in))};
}

AttentionResult MultiHeadAttention::attend(const graph::Var& q_in, const graph::Var& k, const graph::Var& v,
                                           const Tensor& mask, const AttentionStep& step) const {
  REALMT_CHECK(step.layer >= 1, "residual attention layers count from 1, got {}", step.layer);
  const graph::Var q = split_heads(q_(q_in));
  // Q K^T / sqrt(Dh) in one batched GEMM with the scale folded into alpha.
  graph::Var s = graph::matmul(q, k, {false, true, static_cast<float>(1.0 / std::sqrt(double(head_dim())))});
  AttentionResult r;
  graph::Var logits = s;
  if (step.mode != ResidualMode::kNone) {
    if (step.prev_scores.defined()) {
      REALMT_CHECK(step.prev_scores.shape() == s.shape(), "residual scores {} do not match this layer's {}",
                   step.prev_scores.shape(), s.shape());
      s = graph::add(s, step.prev_scores);
    }
    r.scores = s;
    logits = step.mode == ResidualMode::kMean && step.layer > 1 ? graph::scale(s, 1.0 / step.layer) : s;
  }
  graph::Var p = graph::softmax(logits, mask);
  r.probs = p;
  if (step.gen && step.dropout > 0) p = graph::dropout(p, step.dropout, *step.gen);
  graph::Var ctx = graph::matmul(p, v);  // [B, H, Tq, Dh]
  ctx = graph::reshape(graph::permute(ctx, {0, 2, 1, 3}), {q_in.dim(0), q_in.dim(1), dim_});
  r.out = o_(ctx);
  return r;
}

AttentionResult MultiHeadAttention::operator()(const graph::Var& q_in, const graph::Var& kv_in, const Tensor& mask,
                                               const AttentionStep& step) const {
  auto [k, v] = keys_values(kv_in);
  return attend(q_in, k, v, mask, step);
}

void MultiHeadAttention::init(Generator& gen) const {
  q_.init(gen);
  k_.init(gen);
  v_.init(gen);
  o_.init(gen);
}

}  // namespace realmt::layers
