// Differentiable fused attention (ops/attention.h) over packed projections.
//   q: [B, Tq, Cq] with the H*Dh query columns from q_col; kv: [B, Tk, Ckv] with K from k_col
//   and V from v_col (kv may be the very Var q: self-attention's packed Q|K|V).
//   prev: S_{l-1} of the residual chain or undefined.
// Returns the context [B, Tq, H*Dh] and, with keep_scores, the running sum S_l [B, H, Tq, Tk]
// that the next layer of the chain takes as prev (a second output of the same node:
// graph::record_multi), and P [B, H, Tq, Tk] before dropout as a plain tensor (alignments, tests).
// Dropout on P draws B*H*Tq*Tk numbers from gen when o.dropout > 0 and gen is set.
#pragma once

#include "core/rng.h"
#include "graph/var.h"
#include "ops/attention.h"

namespace realmt::graph {

struct AttentionInputs {
  int64_t dim = 0;  // H * Dh (the model dimension)
  Var q;
  int64_t q_col = 0;
  Var kv;
  int64_t k_col = 0, v_col = 0;
  Tensor key_mask;  // additive [B, Tk] or undefined
  Var prev;         // undefined: no residual scores in
};

struct AttentionOutputs {
  Var ctx;
  Var scores;    // defined with keep_scores
  Tensor probs;  // defined with keep_probs (or dropout)
};

AttentionOutputs attention(const AttentionInputs& in, ops::AttentionOptions o, Generator* gen);

}  // namespace realmt::graph
