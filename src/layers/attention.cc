#include "layers/attention.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "graph/attention.h"
#include "ops/kv_cache.h"

namespace realmt::layers {

MultiHeadAttention::MultiHeadAttention(graph::ParameterSet& params, const std::string& prefix,
                                       int64_t dim, int64_t heads, AttentionKind kind)
    : kind_(kind), dim_(dim), heads_(heads) {
  REALMT_CHECK(heads > 0 && dim % heads == 0, "transformer-heads ({}) must divide dim-emb ({})",
               heads, dim);
  if (kind == AttentionKind::kSelf) {
    qkv_ = Linear(params, prefix + ".qkv", dim, 3 * dim, true, 3);
  } else {
    q_ = Linear(params, prefix + ".q", dim, dim);
    kv_ = Linear(params, prefix + ".kv", dim, 2 * dim, true, 2);
  }
  o_ = Linear(params, prefix + ".o", dim, dim);
}

MultiHeadAttention::MultiHeadAttention(AttentionKind kind, int64_t heads, Projections p)
    : kind_(kind),
      qkv_(std::move(p.qkv)),
      q_(std::move(p.q)),
      kv_(std::move(p.kv)),
      o_(std::move(p.o)),
      dim_(o_.in()),
      heads_(heads) {
  REALMT_CHECK(heads > 0 && dim_ % heads == 0, "transformer-heads ({}) must divide dim-emb ({})",
               heads, dim_);
  REALMT_ASSERT(kind == AttentionKind::kSelf ? qkv_.out() == 3 * dim_
                                             : q_.out() == dim_ && kv_.out() == 2 * dim_);
}

ops::AttentionOptions MultiHeadAttention::options(const AttentionStep& step, bool causal) const {
  REALMT_CHECK(step.layer >= 1, "residual attention layers count from 1, got {}", step.layer);
  ops::AttentionOptions o;
  o.heads = heads_;
  o.scale = 1.0 / std::sqrt(static_cast<double>(head_dim()));
  o.score_scale = step.mode == ResidualMode::kMean ? 1.0 / step.layer : 1.0;
  o.keep_scores = step.mode != ResidualMode::kNone;
  o.causal = causal;
  o.dropout = step.gen ? step.dropout : 0.0;
  return o;
}

AttentionResult MultiHeadAttention::finish(const graph::Var& ctx, const graph::Var& scores,
                                           const Tensor& probs) const {
  AttentionResult r;
  r.out = o_.project(ctx);
  r.scores = scores;
  r.probs = probs;
  return r;
}

AttentionResult MultiHeadAttention::self_attend(const graph::Var& x, const Tensor& key_mask,
                                                bool causal, const AttentionStep& step) const {
  REALMT_CHECK(kind_ == AttentionKind::kSelf, "self_attend on a cross-attention layer");
  graph::AttentionInputs in;
  in.dim = dim_;
  in.q = in.kv = qkv_(x);  // [B, T, 3D]: Q | K | V
  in.q_col = 0;
  in.k_col = dim_;
  in.v_col = 2 * dim_;
  in.key_mask = key_mask;
  if (step.mode != ResidualMode::kNone) in.prev = step.prev_scores;
  graph::AttentionOutputs a = graph::attention(in, options(step, causal), step.gen);
  return finish(a.ctx, a.scores, a.probs);
}

AttentionResult MultiHeadAttention::self_attend_cached(const graph::Var& x, KvCache& cache,
                                                       const AttentionStep& step,
                                                       const graph::Var& kv_x) const {
  REALMT_CHECK(kind_ == AttentionKind::kSelf, "self_attend_cached on a cross-attention layer");
  REALMT_CHECK(!graph::grad_enabled() || !x.requires_grad(),
               "the key/value cache is for decoding (no gradients)");
  const graph::Var qkv = qkv_(x);  // [N, Tq, 3D]
  const bool first = cache.length == 0;
  const graph::Var kv_source =
      kv_x.defined() ? qkv_(kv_x) : qkv;  // its K | V columns go to the cache
  const int64_t n = x.dim(0), tq = x.dim(1), need = cache.length + tq;
  if (cache.rows == 0) cache.rows = n;
  REALMT_CHECK(n <= cache.rows, "key/value cache allocated for {} rows, the step has {}",
               cache.rows, n);
  if (!cache.k.defined() || cache.k.dim(2) < need) {
    // Geometric growth keeps the copies of a long output linear in its length.
    const int64_t capacity = std::max<int64_t>(
        {need, cache.initial_capacity, cache.k.defined() ? 2 * cache.k.dim(2) : 0});
    if (cache.k.defined()) {
      // Only the rows in use move: a search's rows never grow again once it has widened to
      // its beams (its first step), and a finished sentence's rows would take their share of
      // every later doubling.
      cache.rows = n;
      cache.k = ops::kv_cache_resize(cache.k.narrow0(0, n), cache.length, capacity);
      cache.v = ops::kv_cache_resize(cache.v.narrow0(0, n), cache.length, capacity);
    } else {
      cache.k = Tensor::empty({cache.rows, heads_, capacity, head_dim()}, x.dtype(), x.device());
      cache.v = Tensor::empty({cache.rows, heads_, capacity, head_dim()}, x.dtype(), x.device());
    }
  }
  Tensor k = cache.k.narrow0(0, n), v = cache.v.narrow0(0, n);  // the rows in use
  ops::kv_cache_write(k, kv_source.value(), dim_, cache.length);
  ops::kv_cache_write(v, kv_source.value(), 2 * dim_, cache.length);
  cache.length = need;
  if (first && kv_x.defined()) return self_attend(x, Tensor(), /*causal=*/true, step);
  using Op = ops::AttentionOperand;
  const ops::AttentionOptions o = options(step, /*causal=*/true);
  const Tensor prev =
      o.keep_scores && step.prev_scores.defined() ? step.prev_scores.value() : Tensor();
  ops::AttentionResult r = ops::attention(Op::packed(qkv.value(), 0, heads_, head_dim()),
                                          Op::heads_major(k, cache.length),
                                          Op::heads_major(v, cache.length), Tensor(), prev, o);
  return finish(graph::Var(r.ctx), r.scores.defined() ? graph::Var(r.scores) : graph::Var(),
                r.probs);
}

graph::Var MultiHeadAttention::source_kv(const graph::Var& memory) const {
  REALMT_CHECK(kind_ == AttentionKind::kCross, "source_kv on a self-attention layer");
  return kv_(memory);
}

AttentionResult MultiHeadAttention::cross_attend(const graph::Var& x, const graph::Var& kv,
                                                 const Tensor& key_mask,
                                                 const AttentionStep& step) const {
  REALMT_CHECK(kind_ == AttentionKind::kCross, "cross_attend on a self-attention layer");
  graph::AttentionInputs in;
  in.dim = dim_;
  in.q = q_(x);
  in.kv = kv;
  in.k_col = 0;
  in.v_col = dim_;
  in.key_mask = key_mask;
  if (step.mode != ResidualMode::kNone) in.prev = step.prev_scores;
  graph::AttentionOutputs a = graph::attention(in, options(step, false), step.gen);
  return finish(a.ctx, a.scores, a.probs);
}

std::vector<Linear*> MultiHeadAttention::linears() {
  if (kind_ == AttentionKind::kSelf) return {&qkv_, &o_};
  return {&q_, &kv_, &o_};
}

}  // namespace realmt::layers
