// Multi-head attention with RealFormer residual attention (He et al. 2020).
// Layer l of a chain computes, per head,
//   S_l = Q K^T / sqrt(Dh) + S_{l-1}          (no S_0; S_l is the UNMASKED running sum)
//   logits = S_l (mode sum)  or  S_l / l (mode mean, 1-based l)  or  Q K^T / sqrt(Dh) (none)
//   P = dropout(softmax(logits + mask))       (the mask is added afresh in every layer)
//   out = concat_h(P V) Wo (+ bo, which the sub-layer epilogue adds: output().bias())
// The carried S gets no dropout. Heads correspond by index. Chains (encoder self-attention,
// decoder self-attention, cross-attention) are independent: each caller passes its own S.
// Projections are fused: self-attention has one Q|K|V projection "<prefix>.qkv" [D, 3D],
// cross-attention "<prefix>.q" [D, D] and "<prefix>.kv" [D, 2D] (the source side, computed once
// per source when decoding); "<prefix>.o" [D, D]. The attention core (ops/attention.h) reads the
// packed projections in place: no head permutes.
// Shapes: x [B, Tq, D]; key_mask additive [B, Tk] (0 / -inf) or undefined; S [B, H, Tq, Tk].
#pragma once

#include <string>
#include <vector>

#include "common/enum_names.h"
#include "core/rng.h"
#include "layers/linear.h"
#include "ops/attention.h"

namespace realmt::layers {

enum class ResidualMode { kNone, kSum, kMean };
constexpr auto enum_names(ResidualMode) {
  return std::to_array<EnumName<ResidualMode>>(
      {{ResidualMode::kNone, "none"}, {ResidualMode::kSum, "sum"}, {ResidualMode::kMean, "mean"}});
}

enum class AttentionKind { kSelf, kCross };

struct AttentionStep {
  ResidualMode mode = ResidualMode::kNone;
  int layer = 1;             // 1-based position in its chain (for mode mean)
  graph::Var prev_scores{};  // S_{l-1}, undefined in the first layer or when mode is none
  double dropout = 0.0;      // on the probabilities
  Generator* gen = nullptr;  // nullptr: no dropout (inference)
};

struct AttentionResult {
  graph::Var out;     // [B, Tq, D]: context @ Wo, without the output bias
  graph::Var scores;  // S_l [B, H, Tq, Tk]; undefined when mode is none
  Tensor probs;       // P before dropout [B, H, Tq, Tk] (alignments, tests)
};

// Keys and values of the positions decoded so far, [R, H, capacity, Dh] each: allocated for R
// hypotheses (`rows`, 0: the first step's) of which the first N (the step's) are in use, and
// positions [0, length) valid. The capacity starts at `initial_capacity` and doubles when full
// (a copy only log-many times) for the rows in use then (`rows` becomes N: later steps may have
// fewer rows, never more); keys and values are written in place (ops/kv_cache.h), and beam
// moves gather rows in place (ops::gather_rows_).
struct KvCache {
  Tensor k, v;
  int64_t length = 0;
  int64_t rows = 0;
  int64_t initial_capacity = 16;
};

class MultiHeadAttention {
 public:
  MultiHeadAttention() = default;
  MultiHeadAttention(graph::ParameterSet& params, const std::string& prefix, int64_t dim,
                     int64_t heads, AttentionKind kind);
  // Binds projections already declared (a model's layout, models/layout.h): self-attention
  // qkv [D, 3D] and o; cross-attention q [D, D], kv [D, 2D] and o.
  struct Projections {
    Linear qkv{}, q{}, kv{}, o{};
  };
  MultiHeadAttention(AttentionKind kind, int64_t heads, Projections p);

  // Self-attention over x: causal (decoder) or with a key mask (encoder).
  AttentionResult self_attend(const graph::Var& x, const Tensor& key_mask, bool causal,
                              const AttentionStep& step) const;
  // Incremental causal self-attention (no gradients): x [N, Tq, D] holds the next Tq positions;
  // their keys and values are appended to the cache. kv_x (undefined: x) gives the keys and
  // values appended instead, while the first step (an empty cache) attends over x's own, as
  // Marian's Pre-LN decoder does (ModelConfig::decoder_cache_unnormed).
  AttentionResult self_attend_cached(const graph::Var& x, KvCache& cache, const AttentionStep& step,
                                     const graph::Var& kv_x = graph::Var()) const;
  // The source's packed keys|values [B, S, 2D] for cross-attention.
  graph::Var source_kv(const graph::Var& memory) const;
  AttentionResult cross_attend(const graph::Var& x, const graph::Var& kv, const Tensor& key_mask,
                               const AttentionStep& step) const;

  const Linear& output() const { return o_; }
  // The projections, for int8 quantization (layers/linear.h).
  std::vector<Linear*> linears();
  int64_t heads() const { return heads_; }
  int64_t head_dim() const { return dim_ / heads_; }

 private:
  ops::AttentionOptions options(const AttentionStep& step, bool causal) const;
  AttentionResult finish(const graph::Var& ctx, const graph::Var& scores,
                         const Tensor& probs) const;
  AttentionKind kind_ = AttentionKind::kSelf;
  Linear qkv_, q_, kv_, o_;
  int64_t dim_ = 0, heads_ = 1;
};

}  // namespace realmt::layers
