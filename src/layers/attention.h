// Multi-head attention with RealFormer residual attention (He et al. 2020).
// Layer l of a chain computes, per head,
//   S_l = Q K^T / sqrt(Dh) + S_{l-1}          (no S_0; S_l is the UNMASKED running sum)
//   logits = S_l (mode sum)  or  S_l / l (mode mean, 1-based l)  or  Q K^T / sqrt(Dh) (none)
//   P = dropout(softmax(logits + mask))       (the mask is added afresh in every layer)
//   out = concat_h(P V) Wo + bo
// The carried S gets no dropout. Heads correspond by index. Chains (encoder self-attention,
// decoder self-attention, cross-attention) are independent: each caller passes its own S.
// Shapes: q_in [B, Tq, D], kv_in [B, Tk, D], K/V [B, H, Tk, Dh], mask additive, broadcastable
// to [B, H, Tq, Tk] (e.g. [B, 1, 1, Tk] padding, [1, 1, Tq, Tk] causal), S [B, H, Tq, Tk].
// Parameters "<prefix>.{q,k,v,o}.{weight,bias}".
#pragma once

#include <string>
#include <utility>

#include "core/rng.h"
#include "layers/linear.h"

namespace realmt::layers {

enum class ResidualMode { kNone, kSum, kMean };
ResidualMode parse_residual_mode(const std::string& name);  // "none", "sum", "mean"
const char* residual_mode_name(ResidualMode mode);

struct AttentionStep {
  ResidualMode mode = ResidualMode::kNone;
  int layer = 1;             // 1-based position in its chain (for mode mean)
  graph::Var prev_scores;    // S_{l-1}, undefined in the first layer or when mode is none
  double dropout = 0.0;      // on the probabilities
  Generator* gen = nullptr;  // nullptr: no dropout (inference)
};

struct AttentionResult {
  graph::Var out;     // [B, Tq, D]
  graph::Var scores;  // S_l [B, H, Tq, Tk]; undefined when mode is none
  graph::Var probs;   // P before dropout [B, H, Tq, Tk] (alignments, tests)
};

class MultiHeadAttention {
 public:
  MultiHeadAttention() = default;
  MultiHeadAttention(graph::ParameterSet& params, const std::string& prefix, int64_t dim, int64_t heads);

  // K and V of kv_in [B, Tk, D] as [B, H, Tk, Dh] (computed once per source for cross-attention).
  std::pair<graph::Var, graph::Var> keys_values(const graph::Var& kv_in) const;
  AttentionResult attend(const graph::Var& q_in, const graph::Var& k, const graph::Var& v, const Tensor& mask,
                         const AttentionStep& step) const;
  AttentionResult operator()(const graph::Var& q_in, const graph::Var& kv_in, const Tensor& mask,
                             const AttentionStep& step) const;
  void init(Generator& gen) const;
  int64_t heads() const { return heads_; }
  int64_t head_dim() const { return dim_ / heads_; }

 private:
  graph::Var split_heads(const graph::Var& x) const;  // [B, T, D] -> [B, H, T, Dh]
  Linear q_, k_, v_, o_;
  int64_t dim_ = 0, heads_ = 1;
};

}  // namespace realmt::layers
