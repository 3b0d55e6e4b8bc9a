// The decoder's output layer fused with the beam search's selection: projection, log-softmax and
// top-k over [N, V] without writing the [N, V] log-probabilities.
//   h [N, D]; the table W [V, D] (the tied embedding: logits = h W^T + b, with the output bias b
//   [V] when given), f32 or int8 (ops/quantize.h)
//   lse[n]      = log sum_v exp(logits[n, v])
//   s[n, v]     = logits[n, v] - lse[n] + token_bias[v]    (token_bias optional f32 [V]: e.g. -inf
//                                                          for tokens the search never produces)
//   values[n, :], indices[n, :] = the k largest s[n, v] of every row, sorted descending; equal
//                 values keep ascending v (as ops::topk); NaN ranks as -inf
//   also[n]     = logits[n, also_token] - lse[n]           (one token's log-probability in every
//                                                          row, e.g. eos; when also_token >= 0)
// Shapes: values f32 [N, k], indices i32 [N, k], lse f32 [N], also f32 [N]; 1 <= k <= V.
// The CPU kernel walks V in chunks: a GEMM per chunk, then per row an online log-sum-exp and a
// k-entry heap while the chunk's logits are in cache. h f32. Not differentiable; not in place.
// int8 (the table `quantized`): the logits come from the int8 GEMM (ops/quantize.h). When the f32
// table `weight` is given too (the decoding model keeps it for lookups), each row's best 2k
// candidates by int8 score get exact f32 logits h . W[v]: their int8 terms in lse are replaced by
// the exact ones (but for candidates whose score is -inf: forbidden by the bias) and the k best
// are chosen among the 2k by the exact scores; `also` is the also token's exact logit - lse. So
// the chosen tokens' scores carry no quantization error of the output layer but through lse's
// other terms (the tokens outside the 2k, whose probabilities are small).
#pragma once

#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/quantize.h"

namespace realmt::ops {

// The output table: f32 `weight` [V, D], or `quantized` (per vocabulary row) when defined, with
// `weight` then optional (for the exact rescoring above); `bias` f32 [V] optional (part of the
// logits, unlike the token bias).
struct OutputWeight {
  Tensor weight;
  QuantizedWeight quantized;
  Tensor bias;
  int64_t vocab() const { return quantized.defined() ? quantized.rows() : weight.dim(0); }
  int64_t dim() const { return quantized.defined() ? quantized.cols() : weight.dim(1); }
  Device device() const {
    return quantized.defined() ? quantized.values.device() : weight.device();
  }
};

struct LinearTopkOptions {
  int64_t k = 1;
  int64_t also_token = -1;  // >= 0: also return this token's log-probability per row
  int64_t chunk = 0;        // vocabulary entries per chunk (CPU); 0: automatic
};

struct LinearTopkResult {
  Tensor values;   // f32 [N, k]
  Tensor indices;  // i32 [N, k]
  Tensor lse;      // f32 [N]
  Tensor also;     // f32 [N], when also_token >= 0
};

LinearTopkResult linear_log_softmax_topk(const Tensor& h, const OutputWeight& w,
                                         const Tensor& token_bias, const LinearTopkOptions& o);

using LinearTopkKernel = void(const Tensor& h, const OutputWeight& w, const Tensor& token_bias,
                              const LinearTopkOptions& o, LinearTopkResult& out);
REALMT_KERNEL_SLOT(linear_log_softmax_topk_kernel, LinearTopkKernel);

}  // namespace realmt::ops
