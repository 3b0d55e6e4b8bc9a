// Embedding lookup (a row gather) and its backward (a row scatter-add).
//   weight [V, D]; ids i32 [...] (e.g. [B, T]) -> y [..., D], y[p, :] = weight[ids[p], :].
//   Forward: any dtype (rows are copied). Backward: f32/f64.
// Every id must lie in [0, V); the ids are checked on the host before any kernel runs (a CUDA
// ids tensor is copied to the host for the check), so kernels may assume valid ids.
// Backward: dweight [V, D] = 0, then dweight[ids[p], :] += dy[p, :] for every position p in
// order. Repeated ids accumulate; rows of ids that never occur stay 0. The result must not
// depend on thread scheduling (the CPU kernel gives the same bits on any thread count).
// Not in place.
#pragma once

#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor embedding(const Tensor& weight, const Tensor& ids);
// dy [..., D] with ids [...]; vocab = V, the number of rows of the weight.
Tensor embedding_backward(const Tensor& dy, const Tensor& ids, int64_t vocab);

// y [P, D] and dy [P, D] are seen flat over the P = ids.numel() positions. dweight arrives
// zeroed (a kernel accumulates into it).
using EmbeddingKernel = void(const Tensor& weight, const Tensor& ids, Tensor& y);
using EmbeddingBackwardKernel = void(const Tensor& dy, const Tensor& ids, Tensor& dweight);
REALMT_KERNEL_SLOT(embedding_kernel, EmbeddingKernel);
REALMT_KERNEL_SLOT(embedding_backward_kernel, EmbeddingBackwardKernel);

}  // namespace realmt::ops
