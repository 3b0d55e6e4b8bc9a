// Selection over the last axis.
//   argmax(x): x [..., N] (N >= 1) -> i32 [...], the position of the largest entry of each row;
//     the lowest position on ties.
//   topk(x, k): x [..., N], 0 <= k <= N -> (values [..., k] in x's dtype, indices i32 [..., k]),
//     each row's k largest entries sorted descending; equal values keep ascending positions
//     (the lower index first). Beam search calls it on scores [B, K*V] with k = 2K.
//   NaN is ranked as -inf (below every number; ties with -inf by position) and returned as NaN.
// dtypes: f32, f64, f16, bf16 (compared in f32, f64 for f64). Not differentiable. Not in place.
#pragma once

#include <utility>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor argmax(const Tensor& x);
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k);

// x viewed as [rows, n]; values and indices as [rows, k].
struct TopkPlan {
  int64_t rows = 0;
  int64_t n = 0;
  int64_t k = 0;  // 1 <= k <= n
};
// values may be undefined (argmax wants the indices only); indices is always written.
using TopkKernel = void(const Tensor& x, const TopkPlan& plan, Tensor& values, Tensor& indices);
REALMT_KERNEL_SLOT(topk_kernel, TopkKernel);

}  // namespace realmt::ops
