#include "models/transformer.h"

#include <cmath>
#include <limits>

#include "graph/cast.h"
#include "graph/concat.h"
#include "graph/cross_entropy.h"
#include "graph/dropout.h"
#include "graph/elementwise.h"
#include "graph/matmul.h"
#include "graph/permute.h"
#include "graph/reduce.h"
#include "graph/softmax.h"
#include "layers/init.h"
#include "models/admin.h"
#include "ops/cast.h"
#include "ops/index_select.h"
#include "ops/softmax.h"

namespace realmt::models {

using graph::Var;

Transformer::Transformer(const ModelConfig& config) : config_(config) {
  config_.validate();
  post_norm_ = config_.norm == "post";
  admin_ = post_norm_ && config_.admin_init != "none";
  enc_mode_ = layers::parse_residual_mode(config_.residual_attention_encoder);
  dec_mode_ = layers::parse_residual_mode(config_.residual_attention_decoder);
  cross_mode_ = layers::parse_residual_mode(config_.residual_attention_cross);
  const int64_t d = config_.dim_emb;
  const auto act = layers::parse_activation(config_.ffn_activation);
  embedding_ = layers::Embedding(params_, "embeddings", config_.vocab_size, d);
  auto omega = [&](const std::string& name) { return admin_ ? params_.add(name + ".omega", {d}) : -1; };
  encoder_.resize(config_.enc_depth);
  for (int i = 0; i < config_.enc_depth; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    EncoderLayer& l = encoder_[i];
    l.self_attn = layers::MultiHeadAttention(params_, p + ".self_attn", d, config_.heads);
    l.self_attn_norm = layers::LayerNorm(params_, p + ".self_attn.norm", d);
    l.self_omega = omega(p + ".self_attn");
    l.ffn = layers::FeedForward(params_, p + ".ffn", d, config_.dim_ffn, act);
    l.ffn_norm = layers::LayerNorm(params_, p + ".ffn.norm", d);
    l.ffn_omega = omega(p + ".ffn");
  }
  decoder_.resize(config_.dec_depth);
  for (int i = 0; i < config_.dec_depth; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    DecoderLayer& l = decoder_[i];
    l.self_attn = layers::MultiHeadAttention(params_, p + ".self_attn", d, config_.heads);
    l.self_attn_norm = layers::LayerNorm(params_, p + ".self_attn.norm", d);
    l.self_omega = omega(p + ".self_attn");
    l.cross_attn = layers::MultiHeadAttention(params_, p + ".cross_attn", d, config_.heads);
    l.cross_attn_norm = layers::LayerNorm(params_, p + ".cross_attn.norm", d);
    l.cross_omega = omega(p + ".cross_attn");
    l.ffn = layers::FeedForward(params_, p + ".ffn", d, config_.dim_ffn, act);
    l.ffn_norm = layers::LayerNorm(params_, p + ".ffn.norm", d);
    l.ffn_omega = omega(p + ".ffn");
  }
  if (!post_norm_) {
    enc_final_norm_ = layers::LayerNorm(params_, "encoder.final_norm", d);
    dec_final_norm_ = layers::LayerNorm(params_, "decoder.final_norm", d);
  }
}

void Transformer::allocate(Device device, DType dtype) { params_.allocate(device, dtype); }

void Transformer::init(uint64_t seed) {
  Generator gen(seed);
  embedding_.init(gen);
  for (const auto& l : encoder_) {
    l.self_attn.init(gen);
    l.ffn.init(gen);
    l.self_attn_norm.init();
    l.ffn_norm.init();
  }
  for (const auto& l : decoder_) {
    l.self_attn.init(gen);
    l.cross_attn.init(gen);
    l.ffn.init(gen);
    l.self_attn_norm.init();
    l.cross_attn_norm.init();
    l.ffn_norm.init();
  }
  if (!post_norm_) {
    enc_final_norm_.init();
    dec_final_norm_.init();
  }
  if (admin_) set_admin_omegas(*this, config_.admin_init == "closed-form" ? AdminInit::kClosedForm : AdminInit::kOne);
}

template <typename F>
Var Transformer::sublayer(const Var& x, const layers::LayerNorm& norm, int omega, int stack, F&& f,
                          const ForwardContext& ctx) const {
  const double p = config_.dropout;
  auto drop = [&](const Var& v) { return ctx.gen && p > 0 ? graph::dropout(v, p, *ctx.gen) : v; };
  if (!post_norm_) return graph::add(x, drop(f(norm(x))));
  if (!admin_) return norm(graph::add(x, drop(f(x))));
  const Var& w = params_[omega];
  if (ctx.profiler) ctx.profiler->set_omega(stack, params_.names()[omega], w.value());
  const Var a = graph::mul(x, w);  // x_{i-1} * omega_i, omega broadcast over [B, T, D]
  const Var fx = drop(f(x));
  if (ctx.profiler) ctx.profiler->record(stack, a.value(), fx.value());
  return norm(graph::add(a, fx));
}

Var Transformer::embed(const Tensor& ids, int64_t first_position, const ForwardContext& ctx) const {
  Var e = embedding_(ids, first_position);
  return ctx.gen && config_.dropout > 0 ? graph::dropout(e, config_.dropout, *ctx.gen) : e;
}

Tensor Transformer::padding_mask(const Tensor& ids) const {
  const Tensor h = ids.to(Device::cpu());
  const int32_t* p = h.data<int32_t>();
  std::vector<float> m(h.numel());
  for (int64_t i = 0; i < h.numel(); ++i) m[i] = p[i] == 0 ? -std::numeric_limits<float>::infinity() : 0.0f;
  const Tensor t = Tensor::from_vector(m, {ids.dim(0), 1, 1, ids.dim(1)});
  const Var& w = embedding_.weight();
  return ops::cast(t, w.dtype()).to(w.device());
}

Tensor Transformer::causal_mask(int64_t t) const {
  std::vector<float> m(t * t, 0.0f);
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = i + 1; j < t; ++j) m[i * t + j] = -std::numeric_limits<float>::infinity();
  const Var& w = embedding_.weight();
  return ops::cast(Tensor::from_vector(m, {1, 1, t, t}), w.dtype()).to(w.device());
}

Encoded Transformer::encode(const Tensor& src, const ForwardContext& ctx) const {
  REALMT_CHECK(src.rank() == 2 && src.dtype() == DType::kI32, "encode expects i32 ids [B, S], got {}", src);
  Encoded enc;
  enc.mask = padding_mask(src);
  Var x = embed(src.to(embedding_.weight().device()), 0, ctx);
  Var chain;  // encoder self-attention residual scores
  for (int i = 0; i < config_.enc_depth; ++i) {
    const EncoderLayer& l = encoder_[i];
    x = sublayer(x, l.self_attn_norm, l.self_omega, 0, [&](const Var& in) {
      layers::AttentionStep st{enc_mode_, i + 1, chain, config_.dropout_attention, ctx.gen};
      layers::AttentionResult r = l.self_attn(in, in, enc.mask, st);
      chain = r.scores;
      return r.out;
    }, ctx);
    x = sublayer(x, l.ffn_norm, l.ffn_omega, 0,
                 [&](const Var& in) { return l.ffn(in, config_.dropout_ffn, ctx.gen); }, ctx);
  }
  enc.out = post_norm_ ? x : enc_final_norm_(x);
  return enc;
}

Var Transformer::decode(const Encoded& enc, const Tensor& tgt_in, const ForwardContext& ctx) const {
  REALMT_CHECK(tgt_in.rank() == 2 && tgt_in.dtype() == DType::kI32, "decode expects i32 ids [B, T], got {}",
               tgt_in);
  const Tensor causal = causal_mask(tgt_in.dim(1));
  Var x = embed(tgt_in.to(embedding_.weight().device()), 0, ctx);
  Var self_chain, cross_chain;
  for (int i = 0; i < config_.dec_depth; ++i) {
    const DecoderLayer& l = decoder_[i];
    x = sublayer(x, l.self_attn_norm, l.self_omega, 1, [&](const Var& in) {
      layers::AttentionStep st{dec_mode_, i + 1, self_chain, config_.dropout_attention, ctx.gen};
      layers::AttentionResult r = l.self_attn(in, in, causal, st);
      self_chain = r.scores;
      return r.out;
    }, ctx);
    x = sublayer(x, l.cross_attn_norm, l.cross_omega, 1, [&](const Var& in) {
      layers::AttentionStep st{cross_mode_, i + 1, cross_chain, config_.dropout_attention, ctx.gen};
      layers::AttentionResult r = l.cross_attn(in, enc.out, enc.mask, st);
      cross_chain = r.scores;
      return r.out;
    }, ctx);
    x = sublayer(x, l.ffn_norm, l.ffn_omega, 1,
                 [&](const Var& in) { return l.ffn(in, config_.dropout_ffn, ctx.gen); }, ctx);
  }
  return post_norm_ ? x : dec_final_norm_(x);
}

Var Transformer::logits(const Var& hidden) const {
  // Tied output projection: hidden [..., D] @ E^T, E [V, D].
  return graph::matmul(hidden, embedding_.weight(), {false, true, 1.0f});
}

LossOutput Transformer::loss(const Tensor& src, const Tensor& tgt_in, const Tensor& tgt_out, double label_smoothing,
                             const ForwardContext& ctx) const {
  REALMT_CHECK(tgt_in.shape() == tgt_out.shape(), "decoder input {} and output {} differ in shape", tgt_in.shape(),
               tgt_out.shape());
  const Encoded enc = encode(src, ctx);
  const Var h = decode(enc, tgt_in, ctx);
  const Var z = graph::reshape(logits(h), {-1, config_.vocab_size});
  const Tensor targets = tgt_out.reshape({-1}).to(z.device());
  ops::CrossEntropyOptions ce;
  ce.label_smoothing = label_smoothing;
  ce.ignore_index = 0;
  LossOutput out;
  graph::Var per_token = graph::cross_entropy(z, targets, ce);  // [N]
  // bf16/f16 compute (mixed precision): the per-token losses are summed in f32. A bf16 sum over
  // thousands of tokens keeps about 3 significant digits, and an f16 one overflows at 65504.
  if (per_token.dtype() == DType::kBF16 || per_token.dtype() == DType::kF16)
    per_token = graph::cast(per_token, DType::kF32);
  out.loss = graph::sum_all(per_token);
  const Tensor host = tgt_out.to(Device::cpu());
  const int32_t* p = host.data<int32_t>();
  for (int64_t i = 0; i < host.numel(); ++i) out.target_tokens += p[i] != 0;
  return out;
}

DecoderState Transformer::start(const Encoded& enc) const {
  graph::NoGradGuard no_grad;
  DecoderState s;
  s.enc = enc;
  for (const DecoderLayer& l : decoder_) {
    auto [k, v] = l.cross_attn.keys_values(enc.out);
    s.cross_k.push_back(k);
    s.cross_v.push_back(v);
  }
  s.self_k.resize(decoder_.size());
  s.self_v.resize(decoder_.size());
  s.last_cross_probs.resize(decoder_.size());
  return s;
}

Tensor Transformer::step(DecoderState& s, const Tensor& last_tokens) const {
  graph::NoGradGuard no_grad;
  const ForwardContext ctx;  // inference: no dropout
  const int64_t n = last_tokens.numel();
  Var x = embed(last_tokens.reshape({n, 1}).to(embedding_.weight().device()), s.position, ctx);
  // One query row per hypothesis: every residual chain carries just this step's rows.
  Var self_chain, cross_chain;
  for (size_t i = 0; i < decoder_.size(); ++i) {
    const DecoderLayer& l = decoder_[i];
    x = sublayer(x, l.self_attn_norm, l.self_omega, 1, [&](const Var& in) {
      auto [k, v] = l.self_attn.keys_values(in);
      s.self_k[i] = s.self_k[i].defined() ? graph::concat({s.self_k[i], k}, 2) : k;
      s.self_v[i] = s.self_v[i].defined() ? graph::concat({s.self_v[i], v}, 2) : v;
      layers::AttentionStep st{dec_mode_, static_cast<int>(i) + 1, self_chain, 0.0, nullptr};
      layers::AttentionResult r = l.self_attn.attend(in, s.self_k[i], s.self_v[i], Tensor(), st);
      self_chain = r.scores;
      return r.out;
    }, ctx);
    x = sublayer(x, l.cross_attn_norm, l.cross_omega, 1, [&](const Var& in) {
      layers::AttentionStep st{cross_mode_, static_cast<int>(i) + 1, cross_chain, 0.0, nullptr};
      layers::AttentionResult r = l.cross_attn.attend(in, s.cross_k[i], s.cross_v[i], s.enc.mask, st);
      cross_chain = r.scores;
      s.last_cross_probs[i] = r.probs;
      return r.out;
    }, ctx);
    x = sublayer(x, l.ffn_norm, l.ffn_omega, 1, [&](const Var& in) { return l.ffn(in, 0.0, nullptr); }, ctx);
  }
  if (!post_norm_) x = dec_final_norm_(x);
  ++s.position;
  return ops::log_softmax(logits(x).value().reshape({n, config_.vocab_size}));
}

void Transformer::reorder(DecoderState& s, const Tensor& indices) const {
  graph::NoGradGuard no_grad;
  const Tensor idx = indices.to(embedding_.weight().device());
  auto pick = [&](Var& v) {
    if (v.defined()) v = Var(ops::index_select(v.value(), 0, idx));
  };
  pick(s.enc.out);
  s.enc.mask = ops::index_select(s.enc.mask, 0, idx);
  for (auto* vec : {&s.self_k, &s.self_v, &s.cross_k, &s.cross_v, &s.last_cross_probs})
    for (Var& v : *vec) pick(v);
}

void Transformer::reorder_beams(DecoderState& s, const Tensor& indices) const {
  graph::NoGradGuard no_grad;
  REALMT_CHECK(indices.numel() == s.enc.mask.dim(0), "reorder_beams keeps the row count ({}), got {} indices",
               s.enc.mask.dim(0), indices.numel());
  const Tensor idx = indices.to(embedding_.weight().device());
  for (auto* vec : {&s.self_k, &s.self_v, &s.last_cross_probs})
    for (Var& v : *vec)
      if (v.defined()) v = Var(ops::index_select(v.value(), 0, idx));
}

}  // namespace realmt::models
