// Fused multi-head attention core with RealFormer residual scores, reading Q, K and V in place
// from packed projections or caches (no head permutes), for training, scoring and decoding.
//
// Operands: Q [B, Tq, H, Dh], K and V [B, Tk, H, Dh] are described by an AttentionOperand: element
// (b, t, h, e) lives at base[offset + b*stride_b + t*stride_t + h*stride_h + e] (Dh contiguous), so
// one [B, T, 3D] tensor of packed Q|K|V projections (self-attention), [B, S, 2D] K|V (cross-
// attention) or a [B, H, capacity, Dh] key/value cache serve without copies.
// Per batch row b and head h, with scale = 1/sqrt(Dh) and c = score_scale (1/l in the running-
// mean mode of layer l, 1 otherwise):
//   S    = scale Q K^T (+ prev)                      [Tq, Tk]; S is the UNMASKED running sum
//   P    = softmax(c S + key_mask + causal)          (-inf entries give exactly 0)
//   Pd   = dropout(P)                                (stream index = flat index in [B, H, Tq, Tk])
//   ctx  = Pd V, written as [B, Tq, H*Dh]            (the input of the output projection)
// key_mask: optional additive [B, Tk] (0 or -inf). causal: query i sees keys j <= i + Tk - Tq.
// prev: optional S_{l-1} [B, H, Tq, Tk]. Outputs: ctx; P (keep_probs); S (keep_scores).
// Backward, given dctx and the gradient dS' reaching S from the next layer of the chain:
//   dPd = dctx V^T, dV = Pd^T dctx, dP = dropout_backward(dPd),
//   dL = P * (dP - rowsum(P * dP))   (softmax Jacobian),  dS = c dL + dS',
//   dprev = dS, dQ = scale dS K, dK = scale dS^T Q.
// dQ, dK, dV are written (not accumulated) through operands of the same layout over gradient
// tensors; together they cover a packed tensor whole. dtypes f32/f64 (CPU), f32/f16/bf16 (CUDA).
// Not in place.
#pragma once

#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct AttentionOperand {
  Tensor base;
  int64_t offset = 0, stride_b = 0, stride_t = 0, stride_h = 0;  // in elements
  int64_t batch = 0, length = 0, head_dim = 0;                   // B, T and Dh of the operand

  // Columns [col, col + heads*head_dim) of [B, T, C] activations (packed projections).
  static AttentionOperand packed(const Tensor& x, int64_t col, int64_t heads, int64_t head_dim);
  // The first `length` rows of a [B, H, capacity, Dh] cache.
  static AttentionOperand heads_major(const Tensor& cache, int64_t length);
  // The same layout over another tensor of the base's shape (gradients).
  AttentionOperand over(const Tensor& other) const;
};

struct AttentionOptions {
  int64_t heads = 1;
  double scale = 1.0;        // on Q K^T: 1/sqrt(Dh)
  double score_scale = 1.0;  // c: the softmax sees c S (1/l in mode mean)
  bool causal = false;
  bool keep_scores = false;  // write S (the residual chain needs it)
  bool keep_probs = true;    // write P (backward, alignments)
  double dropout = 0.0;      // on P
  uint64_t seed = 0, offset = 0;
};

struct AttentionResult {
  Tensor ctx;     // [B, Tq, H*Dh]
  Tensor probs;   // [B, H, Tq, Tk] or undefined
  Tensor scores;  // [B, H, Tq, Tk] or undefined
};

AttentionResult attention(const AttentionOperand& q, const AttentionOperand& k,
                          const AttentionOperand& v, const Tensor& key_mask, const Tensor& prev,
                          const AttentionOptions& o);

// The tensors written by the backward pass (operands over gradient buffers; dprev optional).
struct AttentionGradTargets {
  AttentionOperand dq, dk, dv;
  Tensor dprev;  // [B, H, Tq, Tk] or undefined
};
// dscores: gradient of S from the next layer, or undefined (zero). probs from the forward pass.
void attention_backward(const Tensor& dctx, const Tensor& dscores, const AttentionOperand& q,
                        const AttentionOperand& k, const AttentionOperand& v, const Tensor& probs,
                        const Tensor& key_mask, const AttentionOptions& o,
                        AttentionGradTargets& out);

// Everything a kernel needs, checked.
struct AttentionArgs {
  AttentionOperand q, k, v;
  Tensor key_mask, prev;
  AttentionOptions o;
  int64_t batch, tq, tk, head_dim;
};
using AttentionKernel = void(const AttentionArgs& a, AttentionResult& out);
using AttentionBackwardKernel = void(const AttentionArgs& a, const Tensor& dctx,
                                     const Tensor& dscores, const Tensor& probs,
                                     AttentionGradTargets& out);
REALMT_KERNEL_SLOT(attention_kernel, AttentionKernel);
REALMT_KERNEL_SLOT(attention_backward_kernel, AttentionBackwardKernel);

}  // namespace realmt::ops
