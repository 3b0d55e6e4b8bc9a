// Transformer encoder-decoder with RealFormer residual attention and ADMIN (ARCHITECTURE.md).
//
// Post-LN sub-layer i (ADMIN when admin_init != none, else omega = 1 and absent):
//   x_i = LN(x_{i-1} * omega_i + dropout(f_i(x_{i-1})))
// Pre-LN sub-layer:  x_i = x_{i-1} + dropout(f_i(LN(x_{i-1}))), and a final LN per stack.
// Encoder layer: self-attention, feed-forward. Decoder layer: causal self-attention,
// cross-attention, feed-forward. Three independent residual-attention chains.
// Shapes: src ids [B, S], target ids [B, T] (i32, padded with the config's pad id), hidden
// [B, *, D], logits [N, V] (V: the target vocabulary). Embeddings (layers/embedding.h): one table
// for source, target and output by default, or untied tables, and an optional output bias.
// Each sub-layer ends in one fused epilogue (ops/residual_norm.h: output bias, dropout, omega,
// residual, norm); the loss fuses the tied output projection with the cross-entropy
// (ops/linear_cross_entropy.h). The decoder is one code path for training, scoring and
// incremental decoding (run_decoder: a KV cache when decoding).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "graph/parameters.h"
#include "layers/attention.h"
#include "layers/embedding.h"
#include "layers/feed_forward.h"
#include "layers/layer_norm.h"
#include "models/model_config.h"
#include "ops/linear_log_softmax_topk.h"

namespace realmt::models {

class AdminProfiler;
class Layout;

// The three residual-attention chains.
enum class AttentionChain { kEncoder, kDecoderSelf, kCross };

// Sees every attention sub-layer's probabilities during encode() and decode() (realmt-analyze):
// P before dropout, [B, H, Tq, Tk] in the model's dtype and device, masked keys exactly 0.
// The tensor is the one the layer computed anyway: observing adds no work to the forward pass.
class AttentionObserver {
 public:
  virtual ~AttentionObserver() = default;
  virtual void observe(AttentionChain chain, int layer, const Tensor& probs) = 0;  // layer from 0
};

// How a forward pass runs.
struct ForwardContext {
  Generator* gen = nullptr;                // dropout on when set (training mode)
  AdminProfiler* profiler = nullptr;       // ADMIN profiling pass: sets omegas on the way
  AttentionObserver* attention = nullptr;  // encode/decode report each layer's probabilities
};

struct Encoded {
  graph::Var out;  // [B, S, D]
  Tensor mask;     // additive [B, S]: 0 for tokens, -inf for padding
};

struct LossOutput {
  graph::Var loss;            // summed label-smoothed cross-entropy over target tokens (scalar)
  int64_t target_tokens = 0;  // non-pad target tokens
};

// Incremental decoding state of one decoder layer.
struct DecoderLayerCache {
  layers::KvCache self;  // keys and values of the target positions decoded so far
  Tensor cross_kv;       // [R, S, 2D]: the source's keys|values, computed once
  Tensor cross_probs;    // [N, H, 1, S] cross-attention probabilities of the last step
};

// How start() sizes the state.
struct DecoderStart {
  int64_t max_rows = 0;           // hypotheses the state holds at most (0: the source's rows)
  int64_t initial_capacity = 16;  // target positions the key/value caches hold before doubling
};

// Incremental decoding state of N hypotheses (rows), allocated once for up to R = max_rows
// (batch x beam): every tensor is [R, ...] of which the first N rows are in use, and reorder()
// moves rows in place, so a step allocates nothing once the caches have their capacity.
struct DecoderState {
  Tensor mask;  // [R, S] additive source mask, rows aligned with the hypotheses
  std::vector<DecoderLayerCache> layers;
  int64_t position = 0;  // next target position
  int64_t rows = 0;      // N, the hypotheses in use
  Tensor scratch;        // reorder's staging buffer, kept between steps
};

// The output layer restricted to some target ids (a lexical shortlist's candidates of a batch,
// search/shortlist.h): those rows of the output table (and bias), gathered once a batch.
// Log-probabilities are normalised over the subset only.
struct OutputSubset {
  std::vector<int32_t> ids;  // C target ids, ascending, unique
  Tensor ids_device;         // i32 [C], on the model's device
  Tensor outside;            // f32 [V]: 0 for the subset's ids, -inf for the others (log_probs)
  ops::OutputWeight weight;  // the table's rows ids (f32 and/or int8) and bias entries
  int64_t position(int32_t id) const;  // index of `id` in ids (it must be there)
};

class Transformer {
 public:
  explicit Transformer(const ModelConfig& config);
  Transformer(const Transformer&) = delete;
  Transformer& operator=(const Transformer&) = delete;

  const ModelConfig& config() const { return config_; }
  graph::ParameterSet& params() { return params_; }
  const graph::ParameterSet& params() const { return params_; }

  // Gradients::kNo for a decoding model (no gradient arena: half the memory).
  void allocate(Device device, DType dtype = DType::kF32,
                graph::Gradients gradients = graph::Gradients::kYes);
  // Random initialisation; omegas per admin_init (profile leaves 1 until realmt-init profiles).
  void init(uint64_t seed);

  Encoded encode(const Tensor& src, const ForwardContext& ctx) const;
  graph::Var decode(const Encoded& enc, const Tensor& tgt_in,
                    const ForwardContext& ctx) const;  // [B, T, D]
  graph::Var logits(
      const graph::Var& hidden) const;  // [..., D] -> [..., V] (tied output projection)
  // tgt_in = <s> y_1 .. y_{T-1}, tgt_out = y_1 .. y_T (</s> last), both padded with the pad id
  // (<s>: the config's decoder-start-id, </s> its eos-id).
  // The loss is f32 when the weights are bf16/f16 (summed in f32), else the weights' dtype.
  LossOutput loss(const Tensor& src, const Tensor& tgt_in, const Tensor& tgt_out,
                  double label_smoothing, const ForwardContext& ctx) const;

  // Incremental decoding (no gradients): start from an encoding (its B rows are the first
  // hypotheses), feed the last tokens [N] to get the decoder's output [N, D] (step_hidden) or
  // log-probabilities [N, V] (step); reorder keeps rows `rows` (new row i = old row rows[i],
  // up to max_rows of them) of every cache, in place. same_sources: every new row comes from a
  // row of the same source sentence (a beam move), so the source side (mask, cross-attention
  // K/V; equal across a sentence's rows) stays in place and only the target side moves.
  DecoderState start(const Encoded& enc, const DecoderStart& options = {}) const;
  Tensor step_hidden(DecoderState& state, const Tensor& last_tokens) const;
  Tensor step(DecoderState& state, const Tensor& last_tokens) const;
  void reorder(DecoderState& state, const std::vector<int32_t>& rows, bool same_sources) const;

  // The output layer for decoding, h [N, D]: log-probabilities [N, V], or fused with the
  // search's per-row selection (ops/linear_log_softmax_topk.h).
  // With a subset (output_subset): logits of its rows only, log-softmax over them; log_probs
  // gives -inf to the other ids, output_topk's indices and also_token are vocabulary ids as
  // without one (token_bias stays [V]).
  Tensor log_probs(const Tensor& h, const OutputSubset* subset = nullptr) const;
  ops::LinearTopkResult output_topk(const Tensor& h, const Tensor& token_bias,
                                    const ops::LinearTopkOptions& o,
                                    const OutputSubset* subset = nullptr) const;
  // The subset of target ids `ids` (ascending, unique, each < target_vocab) for the two above.
  OutputSubset output_subset(std::vector<int32_t> ids) const;

  // int8 inference (ops/quantize.h): every linear weight quantized per output row and its f32
  // copy released; the embedding table gets an int8 copy for the output layer and keeps its f32
  // values for lookups (and for the output layer's exact rescoring of its best candidates,
  // ops/linear_log_softmax_topk.h). Needs a model allocated without gradients, f32, on the CPU;
  // afterwards it only decodes and scores (no loss, no checkpoint).
  void quantize();
  // int8 without the f32 model ever in memory (search::load_model): allocate_int8 allocates every
  // parameter but the linear weights (released from the start; no gradients; CPU, f32);
  // quantize_weight quantizes one of those from its f32 value (`index`: the parameter's), e.g.
  // as load_parameters reads it from a checkpoint (models::LoadOptions::released); quantize()
  // then finishes the model (the embedding's int8 copy). Using a linear layer whose weight was
  // not set names the missing weight.
  void allocate_int8(Device device);
  void quantize_weight(int index, const Tensor& w);
  bool quantized() const { return quantized_; }
  Device device() const { return embedding_.device(); }

  // Omega parameters of the ADMIN sub-layers in forward order, per stack.
  int encoder_sublayers() const { return 2 * config_.enc_depth; }
  int decoder_sublayers() const { return 3 * config_.dec_depth; }

 private:
  // A weight int8 inference keeps quantized: its parameter index and its layer's quantize().
  struct Int8Weight {
    int index;
    bool release;  // the f32 value goes (every linear weight) or stays (the embedding table:
                   // lookups)
    std::function<void(const Tensor&)> quantize;
  };
  std::vector<Int8Weight> int8_weights();
  // Makes the layers over the parameters the layout declared (the constructor).
  void bind(const Layout& layout);

  struct EncoderLayer {
    layers::MultiHeadAttention self_attn;
    layers::FeedForward ffn;
    layers::LayerNorm self_attn_norm, ffn_norm;
    int self_omega = -1, ffn_omega = -1;
  };
  struct DecoderLayer {
    layers::MultiHeadAttention self_attn, cross_attn;
    layers::FeedForward ffn;
    layers::LayerNorm self_attn_norm, cross_attn_norm, ffn_norm;
    int self_omega = -1, cross_omega = -1, ffn_omega = -1;
  };
  // The residual stream between sub-layers: x, and the input of the next sub-layer's branch
  // (Post-LN: x itself; Pre-LN: the next norm of x, made by the previous epilogue).
  struct Stream {
    graph::Var x, in;
  };
  Stream start_stream(const graph::Var& embedded, int stack) const;
  // The epilogue of sub-layer `index` of a stack (0 encoder, 1 decoder): branch output y (its
  // output bias not yet added), ADMIN omega, dropout, residual and the norm after it.
  Stream epilogue(const Stream& s, const graph::Var& y, const graph::Var& bias, int omega,
                  int stack, int index, const ForwardContext& ctx) const;
  // The decoder stack, for training and scoring (state == nullptr: the whole target at once,
  // causal) and for incremental decoding (state: new positions, their keys/values cached).
  graph::Var run_decoder(const graph::Var& embedded, const Encoded& enc, const ForwardContext& ctx,
                         DecoderState* state) const;
  ops::OutputWeight output_weight() const;
  // zero_rows: see layers::Embedding (the decoder's start_rows).
  graph::Var embed(const layers::Embedding& table, const Tensor& ids, int64_t first_position,
                   const ForwardContext& ctx, const Tensor& zero_rows = Tensor()) const;
  const layers::Embedding& source_table() const {
    return config_.source_target_tied() ? embedding_ : source_embedding_;
  }
  const layers::Embedding& output_table() const {
    return config_.target_output_tied() ? embedding_ : output_table_;
  }
  Tensor padding_mask(const Tensor& ids) const;
  // decoder_start_zero: u8 [B, T, 1], 1 where ids hold the decoder start id; else undefined.
  Tensor start_rows(const Tensor& ids) const;

  ModelConfig config_;
  bool post_norm_ = true, admin_ = true, quantized_ = false;
  layers::ResidualMode enc_mode_, dec_mode_, cross_mode_;
  graph::ParameterSet params_;
  layers::Embedding embedding_;         // the target side's table (and the others' when tied)
  layers::Embedding source_embedding_;  // untied source table (tied-embeddings-src false)
  layers::Embedding output_table_;      // untied output layer [V, D] (tied-embeddings false)
  int output_bias_ = -1;                // "output.bias" [V] (output-bias)
  std::vector<EncoderLayer> encoder_;
  std::vector<DecoderLayer> decoder_;
  layers::LayerNorm enc_final_norm_, dec_final_norm_;  // Pre-LN only
  // Per stack, the norm after each sub-layer (Post-LN: its own; Pre-LN: the next one's, the
  // final norm after the last) and, for Pre-LN, the norm before the first.
  std::vector<const layers::LayerNorm*> norms_after_[2];
  const layers::LayerNorm* norm_before_[2] = {nullptr, nullptr};
};

}  // namespace realmt::models
