#include "models/transformer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/allocator.h"
#include "graph/dropout.h"
#include "graph/elementwise.h"
#include "graph/linear_cross_entropy.h"
#include "graph/matmul.h"
#include "graph/permute.h"
#include "graph/residual_norm.h"
#include "layers/init.h"
#include "models/admin.h"
#include "models/layout.h"
#include "ops/cast.h"
#include "ops/dropout.h"
#include "ops/elementwise.h"
#include "ops/index_select.h"
#include "ops/matmul.h"
#include "ops/quantize.h"
#include "ops/kv_cache.h"
#include "ops/softmax.h"

namespace realmt::models {

using graph::Var;

Transformer::Transformer(const ModelConfig& config) : config_(config) {
  config_.validate();
  post_norm_ = config_.norm == Norm::kPost;
  admin_ = post_norm_ && config_.admin_init != AdminInit::kNone;
  enc_mode_ = config_.residual_attention_encoder;
  dec_mode_ = config_.residual_attention_decoder;
  cross_mode_ = config_.residual_attention_cross;
  // Every parameter comes from the layout (models/layout.h), declared in its order (the order
  // init() draws in, the checkpoints' order); the layers then bind to them by role.
  const Layout layout(config_);
  for (const LayoutEntry& e : layout.entries()) params_.add(e.name, e.shape, initializer(e.init));
  bind(layout);
  // The norm each epilogue applies: Post-LN its own sub-layer's; Pre-LN the next sub-layer's
  // (the norm of its input), the final norm after the last.
  std::vector<const layers::LayerNorm*> own[2];
  for (const EncoderLayer& l : encoder_)
    own[0].insert(own[0].end(), {&l.self_attn_norm, &l.ffn_norm});
  for (const DecoderLayer& l : decoder_)
    own[1].insert(own[1].end(), {&l.self_attn_norm, &l.cross_attn_norm, &l.ffn_norm});
  const layers::LayerNorm* finals[2] = {&enc_final_norm_, &dec_final_norm_};
  for (int st = 0; st < 2; ++st) {
    if (post_norm_) {
      norms_after_[st] = own[st];
    } else {
      norm_before_[st] = own[st].empty() ? finals[st] : own[st][0];
      for (size_t i = 0; i < own[st].size(); ++i)
        norms_after_[st].push_back(i + 1 < own[st].size() ? own[st][i + 1] : finals[st]);
    }
  }
}

void Transformer::bind(const Layout& layout) {
  using layers::AttentionKind;
  auto linear = [&](const Role& sub, Part part) {
    return layers::Linear(params_, layout.index(sub.with(part, Field::kWeight)),
                          layout.find(sub.with(part, Field::kBias)));
  };
  auto norm = [&](const Role& where) {
    return layers::LayerNorm(params_, layout.index(where.with(Part::kNorm, Field::kGamma)),
                             layout.index(where.with(Part::kNorm, Field::kBeta)),
                             config_.layer_norm_eps);
  };
  auto omega = [&](const Role& sub) {
    return layout.find(sub.with(Part::kOmega, Field::kValue));
  };  // -1: no ADMIN
  auto self_attention = [&](const Role& sub) {
    return layers::MultiHeadAttention(AttentionKind::kSelf, config_.heads,
                                      {.qkv = linear(sub, Part::kQkv), .o = linear(sub, Part::kO)});
  };
  auto ffn = [&](const Role& sub) {
    return layers::FeedForward(linear(sub, Part::kW1), linear(sub, Part::kW2),
                               config_.ffn_activation);
  };
  // Tables: "embeddings" is the target side's (and the source's and the output layer's when tied).
  const layers::EmbeddingOptions eo{
      .positions = config_.positions,
      .scale = config_.scale_embeddings,
      .position_table = layout.find({.part = Part::kPositions, .field = Field::kValue})};
  auto table = [&](Part part) {
    return layers::Embedding(params_, layout.index({.part = part}), eo);
  };
  embedding_ = table(Part::kEmbeddings);
  if (!config_.source_target_tied()) source_embedding_ = table(Part::kSourceEmbeddings);
  if (!config_.target_output_tied()) output_table_ = table(Part::kOutput);
  output_bias_ = layout.find({.part = Part::kOutputBias, .field = Field::kBias});
  encoder_.resize(config_.enc_depth);
  for (const Role& sub : layout.sublayers(Stack::kEncoder)) {
    EncoderLayer& l = encoder_[sub.layer];
    if (sub.sublayer == Sublayer::kSelfAttn) {
      l.self_attn = self_attention(sub), l.self_attn_norm = norm(sub), l.self_omega = omega(sub);
    } else {
      l.ffn = ffn(sub), l.ffn_norm = norm(sub), l.ffn_omega = omega(sub);
    }
  }
  decoder_.resize(config_.dec_depth);
  for (const Role& sub : layout.sublayers(Stack::kDecoder)) {
    DecoderLayer& l = decoder_[sub.layer];
    if (sub.sublayer == Sublayer::kSelfAttn) {
      l.self_attn = self_attention(sub), l.self_attn_norm = norm(sub), l.self_omega = omega(sub);
    } else if (sub.sublayer == Sublayer::kCrossAttn) {
      l.cross_attn = layers::MultiHeadAttention(
          AttentionKind::kCross, config_.heads,
          {.q = linear(sub, Part::kQ), .kv = linear(sub, Part::kKv), .o = linear(sub, Part::kO)});
      l.cross_attn_norm = norm(sub), l.cross_omega = omega(sub);
    } else {
      l.ffn = ffn(sub), l.ffn_norm = norm(sub), l.ffn_omega = omega(sub);
    }
  }
  if (!post_norm_) {
    enc_final_norm_ = norm({.stack = Stack::kEncoder});
    dec_final_norm_ = norm({.stack = Stack::kDecoder});
  }
}

void Transformer::allocate(Device device, DType dtype, graph::Gradients gradients) {
  params_.allocate(device, dtype, gradients);
}

void Transformer::init(uint64_t seed) {
  // Each parameter's initializer was given with it (the layers' constructors, omega above); the
  // draws follow the declaration order: the embedding, then layer by layer.
  Generator gen(seed);
  params_.init(gen);
}

Transformer::Stream Transformer::start_stream(const Var& embedded, int stack) const {
  if (post_norm_) return {embedded, embedded};
  return {embedded, (*norm_before_[stack])(embedded)};
}

Transformer::Stream Transformer::epilogue(const Stream& s, const Var& y, const Var& bias, int omega,
                                          int stack, int index, const ForwardContext& ctx) const {
  const layers::LayerNorm& norm = *norms_after_[stack][index];
  graph::ResidualNormInputs in{
      .x = s.x, .y = y, .bias = bias, .gamma = norm.gamma(), .beta = norm.beta()};
  if (admin_) in.omega = params_[omega];
  ops::ResidualNormOptions o;
  o.eps = config_.layer_norm_eps;
  o.dropout = ctx.gen ? config_.dropout : 0.0;
  if (ctx.profiler) {
    // ADMIN profiling: omega_i = r first, then the variances of x * omega_i and of the branch
    // dropout(f(x) + b) with the very dropout mask the fused epilogue is about to draw.
    const Var& w = params_[omega];
    ctx.profiler->set_omega(stack, params_.names()[omega], w.value());
    Tensor branch = bias.defined() ? ops::add(y.value(), bias.value()) : y.value();
    if (o.dropout > 0) {
      Generator peek = *ctx.gen;
      const uint64_t offset = peek.reserve(static_cast<uint64_t>(branch.numel()));
      branch = ops::dropout(branch, {.p = o.dropout, .seed = peek.seed(), .offset = offset});
    }
    ctx.profiler->record(stack, ops::mul(s.x.value(), w.value()), branch);
  }
  if (post_norm_) {
    const Var n = graph::residual_norm(in, o, ctx.gen);
    return {n, n};
  }
  const graph::ResidualStream r = graph::residual_norm_stream(in, o, ctx.gen);
  return {r.z, r.n};
}

Var Transformer::embed(const layers::Embedding& table, const Tensor& ids, int64_t first_position,
                       const ForwardContext& ctx, const Tensor& zero_rows) const {
  REALMT_CHECK(!ctx.gen || !quantized_, "an int8-quantized model only decodes");
  Var e = table(ids, first_position, zero_rows);
  return ctx.gen && config_.dropout > 0 ? graph::dropout(e, config_.dropout, *ctx.gen) : e;
}

Tensor Transformer::padding_mask(const Tensor& ids) const {
  const Tensor h = ids.to(Device::cpu());
  const int32_t* p = h.data<int32_t>();
  std::vector<float> m(h.numel());
  for (int64_t i = 0; i < h.numel(); ++i)
    m[i] = p[i] == config_.pad_id ? -std::numeric_limits<float>::infinity() : 0.0f;
  const Tensor t = Tensor::from_vector(m, {ids.dim(0), ids.dim(1)});
  return ops::cast(t, embedding_.dtype()).to(embedding_.device());
}

Tensor Transformer::start_rows(const Tensor& ids) const {
  if (!config_.decoder_start_zero) return Tensor();
  const Tensor h = ids.to(Device::cpu());
  const int32_t* p = h.data<int32_t>();
  std::vector<uint8_t> m(static_cast<size_t>(h.numel()));
  for (int64_t i = 0; i < h.numel(); ++i)
    m[static_cast<size_t>(i)] = p[i] == config_.decoder_start_id ? 1 : 0;
  return Tensor::from_vector(m, {ids.dim(0), ids.dim(1), 1}).to(embedding_.device());
}

Encoded Transformer::encode(const Tensor& src, const ForwardContext& ctx) const {
  REALMT_CHECK(src.rank() == 2 && src.dtype() == DType::kI32,
               "encode expects i32 ids [B, S], got {}", src);
  Encoded enc;
  enc.mask = padding_mask(src);
  Stream s = start_stream(embed(source_table(), src.to(device()), 0, ctx), 0);
  Var chain;  // encoder self-attention residual scores
  for (int i = 0; i < config_.enc_depth; ++i) {
    const EncoderLayer& l = encoder_[i];
    const layers::AttentionStep st{.mode = enc_mode_,
                                   .layer = i + 1,
                                   .prev_scores = chain,
                                   .dropout = config_.dropout_attention,
                                   .gen = ctx.gen};
    layers::AttentionResult a = l.self_attn.self_attend(s.in, enc.mask, false, st);
    if (ctx.attention) ctx.attention->observe(AttentionChain::kEncoder, i, a.probs);
    chain = a.scores;
    s = epilogue(s, a.out, l.self_attn.output().bias(), l.self_omega, 0, 2 * i, ctx);
    const Var f = l.ffn(s.in, config_.dropout_ffn, ctx.gen);
    s = epilogue(s, f, l.ffn.output().bias(), l.ffn_omega, 0, 2 * i + 1, ctx);
  }
  enc.out = s.in;
  return enc;
}

Var Transformer::run_decoder(const Var& embedded, const Encoded& enc, const ForwardContext& ctx,
                             DecoderState* state) const {
  Stream s = start_stream(embedded, 1);
  Var self_chain, cross_chain;
  for (int i = 0; i < config_.dec_depth; ++i) {
    const DecoderLayer& l = decoder_[i];
    DecoderLayerCache* cache = state ? &state->layers[i] : nullptr;
    const layers::AttentionStep self_step{.mode = dec_mode_,
                                          .layer = i + 1,
                                          .prev_scores = self_chain,
                                          .dropout = config_.dropout_attention,
                                          .gen = ctx.gen};
    const Var cache_kv = config_.decoder_cache_unnormed ? s.x : Var();
    layers::AttentionResult a =
        cache ? l.self_attn.self_attend_cached(s.in, cache->self, self_step, cache_kv)
              : l.self_attn.self_attend(s.in, Tensor(), true, self_step);
    if (ctx.attention) ctx.attention->observe(AttentionChain::kDecoderSelf, i, a.probs);
    self_chain = a.scores;
    s = epilogue(s, a.out, l.self_attn.output().bias(), l.self_omega, 1, 3 * i, ctx);
    const layers::AttentionStep cross_step{.mode = cross_mode_,
                                           .layer = i + 1,
                                           .prev_scores = cross_chain,
                                           .dropout = config_.dropout_attention,
                                           .gen = ctx.gen};
    const Var kv =
        cache ? Var(cache->cross_kv.narrow0(0, state->rows)) : l.cross_attn.source_kv(enc.out);
    layers::AttentionResult c = l.cross_attn.cross_attend(s.in, kv, enc.mask, cross_step);
    if (cache) cache->cross_probs = c.probs;
    if (ctx.attention) ctx.attention->observe(AttentionChain::kCross, i, c.probs);
    cross_chain = c.scores;
    s = epilogue(s, c.out, l.cross_attn.output().bias(), l.cross_omega, 1, 3 * i + 1, ctx);
    const Var f = l.ffn(s.in, config_.dropout_ffn, ctx.gen);
    s = epilogue(s, f, l.ffn.output().bias(), l.ffn_omega, 1, 3 * i + 2, ctx);
  }
  return s.in;
}

Var Transformer::decode(const Encoded& enc, const Tensor& tgt_in, const ForwardContext& ctx) const {
  REALMT_CHECK(tgt_in.rank() == 2 && tgt_in.dtype() == DType::kI32,
               "decode expects i32 ids [B, T], got {}", tgt_in);
  return run_decoder(embed(embedding_, tgt_in.to(device()), 0, ctx, start_rows(tgt_in)), enc, ctx,
                     nullptr);
}

Var Transformer::logits(const Var& hidden) const {
  // Output projection: hidden [..., D] @ E^T, E [V, D] (the tied table or the output layer's), + b.
  const layers::Embedding& table = output_table();
  Var z = table.quantized() ? Var(ops::quantized_matmul(hidden.value(), *table.quantized()))
                            : graph::matmul(hidden, table.weight(), {.trans_b = true});
  return output_bias_ >= 0 ? graph::add(z, params_[output_bias_]) : z;
}

LossOutput Transformer::loss(const Tensor& src, const Tensor& tgt_in, const Tensor& tgt_out,
                             double label_smoothing, const ForwardContext& ctx) const {
  REALMT_CHECK(tgt_in.shape() == tgt_out.shape(), "decoder input {} and output {} differ in shape",
               tgt_in.shape(), tgt_out.shape());
  REALMT_CHECK(!quantized_,
               "an int8-quantized model only decodes and scores by steps; it has no training loss");
  const Encoded enc = encode(src, ctx);
  const Var h = graph::reshape(decode(enc, tgt_in, ctx), {-1, config_.dim_emb});
  const Tensor targets = tgt_out.reshape({-1}).to(h.device());
  ops::LinearCrossEntropyOptions ce;
  ce.label_smoothing = label_smoothing;
  ce.ignore_index = config_.pad_id;
  // The output projection and the loss in row chunks: no [N, V] logits (the loss is summed in
  // f32 for bf16/f16 weights: a half-precision sum over thousands of tokens keeps ~3 digits).
  LossOutput out;
  const Var bias = output_bias_ >= 0 ? params_[output_bias_] : Var();
  out.loss = graph::linear_cross_entropy(h, output_table().weight(), bias, targets, ce).loss;
  const Tensor host = tgt_out.to(Device::cpu());
  const int32_t* p = host.data<int32_t>();
  for (int64_t i = 0; i < host.numel(); ++i) out.target_tokens += p[i] != config_.pad_id;
  return out;
}

DecoderState Transformer::start(const Encoded& enc, const DecoderStart& options) const {
  graph::NoGradGuard no_grad;
  const int64_t b = enc.mask.dim(0), rows = options.max_rows > 0 ? options.max_rows : b;
  REALMT_CHECK(rows >= b, "decoder state for {} rows cannot hold the source's {}", rows, b);
  // [R, ...] tensors whose first B rows are the source's (the state's own: reorder moves rows
  // in place, so a tensor the caller still holds is copied).
  auto widen = [&](const Tensor& t, bool own) {
    if (rows == b && own) return t;
    std::vector<int64_t> dims = t.shape().vec();
    dims[0] = rows;
    Tensor w = Tensor::empty(Shape(dims), t.dtype(), t.device());
    w.narrow0(0, b).copy_from(t);
    return w;
  };
  DecoderState s;
  s.mask = widen(enc.mask, false);
  s.rows = b;
  s.layers.resize(decoder_.size());
  for (size_t i = 0; i < decoder_.size(); ++i) {
    s.layers[i].cross_kv = widen(decoder_[i].cross_attn.source_kv(enc.out).value(), true);
    s.layers[i].self.rows = rows;
    s.layers[i].self.initial_capacity = std::max<int64_t>(options.initial_capacity, 1);
  }
  return s;
}

Tensor Transformer::step_hidden(DecoderState& s, const Tensor& last_tokens) const {
  graph::NoGradGuard no_grad;
  const int64_t n = last_tokens.numel();
  REALMT_CHECK(n == s.rows, "decoder step: {} tokens for {} hypotheses", n, s.rows);
  const Tensor ids = last_tokens.reshape({n, 1});
  const Var x = embed(embedding_, ids.to(device()), s.position, ForwardContext{}, start_rows(ids));
  Encoded rows;
  rows.mask = s.mask.narrow0(0, n);
  const Var h = run_decoder(x, rows, ForwardContext{}, &s);
  ++s.position;
  return h.value().reshape({n, config_.dim_emb});
}

Tensor Transformer::step(DecoderState& s, const Tensor& last_tokens) const {
  return log_probs(step_hidden(s, last_tokens));
}

Tensor Transformer::log_probs(const Tensor& h, const OutputSubset* subset) const {
  graph::NoGradGuard no_grad;
  const int64_t V = config_.target_vocab();
  if (!subset) return ops::log_softmax(logits(Var(h)).value().reshape({h.dim(0), V}));
  // Logits of the subset's rows [N, C], log-softmax over them, then scattered into [N, V]
  // (index_select's backward: zeros elsewhere) and -inf added outside the subset.
  const ops::OutputWeight& w = subset->weight;
  Tensor z = w.quantized.defined() ? ops::quantized_matmul(h, w.quantized)
                                   : ops::matmul(h, w.weight, {.trans_b = true});
  if (w.bias.defined()) z = ops::add(z, w.bias.reshape({1, w.bias.numel()}));
  if (z.dtype() != DType::kF32) z = ops::cast(z, DType::kF32);
  const Tensor lp =
      ops::index_select_backward(ops::log_softmax(z), {h.dim(0), V}, 1, subset->ids_device);
  return ops::add(lp, subset->outside.reshape({1, V}));
}

int64_t OutputSubset::position(int32_t id) const {
  const auto it = std::lower_bound(ids.begin(), ids.end(), id);
  REALMT_CHECK(it != ids.end() && *it == id, "output subset: id {} is not among its {} ids", id,
               ids.size());
  return it - ids.begin();
}

OutputSubset Transformer::output_subset(std::vector<int32_t> ids) const {
  const int64_t V = config_.target_vocab();
  REALMT_CHECK(!ids.empty(), "output subset: no target id");
  for (size_t i = 0; i < ids.size(); ++i)
    REALMT_CHECK(ids[i] >= 0 && ids[i] < V && (i == 0 || ids[i] > ids[i - 1]),
                 "output subset: ids must be ascending, unique and < {} (id {} at {})", V, ids[i],
                 i);
  OutputSubset s;
  s.ids = std::move(ids);
  const Device dev = device();
  s.ids_device = Tensor::from_vector(s.ids, {static_cast<int64_t>(s.ids.size())}).to(dev);
  std::vector<float> outside(static_cast<size_t>(V), -std::numeric_limits<float>::infinity());
  for (int32_t id : s.ids) outside[static_cast<size_t>(id)] = 0.0f;
  s.outside = Tensor::from_vector(outside, {V}).to(dev);
  const ops::OutputWeight full = output_weight();
  auto rows = [&](const Tensor& t) {
    return t.defined() ? ops::index_select(t, 0, s.ids_device) : Tensor();
  };
  s.weight.weight = rows(full.weight);
  s.weight.bias = rows(full.bias);
  if (full.quantized.defined()) {
    s.weight.quantized.values = rows(full.quantized.values);
    s.weight.quantized.inv_scales = rows(full.quantized.inv_scales);
    s.weight.quantized.sums = rows(full.quantized.sums);
  }
  return s;
}

ops::OutputWeight Transformer::output_weight() const {
  const layers::Embedding& table = output_table();
  ops::OutputWeight w;
  w.weight = table.weight().value();  // with int8, for the exact rescoring of the best candidates
  if (const ops::QuantizedWeight* q = table.quantized()) w.quantized = *q;
  if (output_bias_ >= 0) w.bias = params_[output_bias_].value();
  return w;
}

ops::LinearTopkResult Transformer::output_topk(const Tensor& h, const Tensor& token_bias,
                                               const ops::LinearTopkOptions& o,
                                               const OutputSubset* subset) const {
  if (!subset) return ops::linear_log_softmax_topk(h, output_weight(), token_bias, o);
  // The same op over the subset's rows: positions in the subset, mapped back to ids after.
  ops::LinearTopkOptions sub = o;
  const int64_t C = static_cast<int64_t>(subset->ids.size());
  sub.k = std::min(o.k, C);
  if (o.also_token >= 0) sub.also_token = subset->position(static_cast<int32_t>(o.also_token));
  const Tensor bias =
      token_bias.defined() ? ops::index_select(token_bias, 0, subset->ids_device) : Tensor();
  ops::LinearTopkResult r = ops::linear_log_softmax_topk(h, subset->weight, bias, sub);
  const Shape shape = r.indices.shape();
  r.indices = ops::index_select(subset->ids_device, 0, r.indices.reshape({r.indices.numel()}))
                  .reshape(shape);
  return r;
}

void Transformer::reorder(DecoderState& s, const std::vector<int32_t>& rows,
                          bool same_sources) const {
  const int64_t n = static_cast<int64_t>(rows.size());
  REALMT_CHECK(n <= s.mask.dim(0), "reorder: {} rows for a state allocated for {}", n,
               s.mask.dim(0));
  REALMT_CHECK(!same_sources || n == s.rows,
               "reorder: a beam move keeps the row count ({}), got {}", s.rows, n);
  for (DecoderLayerCache& c : s.layers) {
    if (c.self.k.defined()) {
      ops::gather_rows_(c.self.k, rows, c.self.length, s.scratch);
      ops::gather_rows_(c.self.v, rows, c.self.length, s.scratch);
    }
    if (!same_sources) ops::gather_rows_(c.cross_kv, rows, 0, s.scratch);
    c.cross_probs = Tensor();  // of the last step's rows; the next step writes it anew
  }
  if (!same_sources) ops::gather_rows_(s.mask, rows, 0, s.scratch);
  s.rows = n;
}

std::vector<Transformer::Int8Weight> Transformer::int8_weights() {
  // The output table keeps its f32 values: lookups read them when it is tied (an exact input
  // embedding is worth its V x D x 4 bytes: bench/RESULTS.md, "int8 accuracy"), and the output
  // layer's exact rescoring of its best candidates reads them either way; the output layer
  // multiplies by the int8 copy. Untied embedding tables are only looked up: they stay f32.
  layers::Embedding* table = config_.target_output_tied() ? &embedding_ : &output_table_;
  std::vector<Int8Weight> out{
      {table->weight_index(), false, [table](const Tensor& w) { table->quantize(w); }}};
  auto take = [&](std::vector<layers::Linear*> linears) {
    for (layers::Linear* l : linears)
      out.push_back({l->weight_index(), true, [l](const Tensor& w) { l->quantize(w); }});
  };
  for (EncoderLayer& l : encoder_) {
    take(l.self_attn.linears());
    take(l.ffn.linears());
  }
  for (DecoderLayer& l : decoder_) {
    take(l.self_attn.linears());
    take(l.cross_attn.linears());
    take(l.ffn.linears());
  }
  return out;
}

void Transformer::quantize() {
  REALMT_CHECK(!quantized_, "model quantized twice");
  REALMT_CHECK(
      !params_.has_gradients(),
      "int8 quantization is for decoding models: allocate the parameters without gradients");
  REALMT_CHECK(embedding_.dtype() == DType::kF32, "int8 inference needs an f32 model, not {}",
               embedding_.dtype());
  // Weights released by allocate_int8 were quantized as they were read (quantize_weight).
  std::vector<int> released;
  for (const Int8Weight& w : int8_weights()) {
    if (params_.released(w.index)) continue;
    w.quantize(params_[w.index].value());
    if (w.release) released.push_back(w.index);
  }
  if (!released.empty()) {
    params_.release(released);
    allocator_for(device()).release_cached();  // the f32 weights' memory goes back to the system
  }
  quantized_ = true;
}

void Transformer::allocate_int8(Device device) {
  std::vector<int> released;
  for (const Int8Weight& w : int8_weights())
    if (w.release) released.push_back(w.index);
  params_.allocate(device, DType::kF32, graph::Gradients::kNo, released);
}

void Transformer::quantize_weight(int index, const Tensor& w) {
  REALMT_CHECK(index >= 0 && index < params_.size(),
               "quantize_weight: parameter index {} out of range ({} parameters)", index,
               params_.size());
  REALMT_CHECK(!quantized_ && params_.allocated() && params_.released(index),
               "quantize_weight: parameter '{}' is not one that int8 keeps quantized only, in a "
               "model made by "
               "allocate_int8 and not yet finished by quantize()",
               params_.names()[index]);
  for (const Int8Weight& q : int8_weights())
    if (q.index == index) return q.quantize(w.to(params_.values().device()));
  REALMT_ASSERT(false);
}

}  // namespace realmt::models
