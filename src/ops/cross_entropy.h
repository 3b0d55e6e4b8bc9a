// Label-smoothed cross-entropy over the last axis, fused with log-softmax, ignoring padding.
//   logits [N, V] (any leading axes: [..., V], N = their product, e.g. B*T), f32/f64;
//   targets i32 [N] (the leading axes of logits).
// With eps = label_smoothing, the target distribution of row i is
//   q_ij = (1 - eps) [j == t_i] + eps / V      (uniform over the whole vocabulary)
// and, with lse_i = log sum_j exp(x_ij) and p_ij = exp(x_ij - lse_i),
//   loss_i = -sum_j q_ij log p_ij = lse_i - (1 - eps) x_it - (eps / V) sum_j x_ij.
// Rows whose target equals ignore_index (padding) get loss 0 and gradient exactly 0; every
// other target must lie in [0, V) (checked on the host before any kernel runs: a CUDA
// targets tensor is copied to the host for the check, so kernels may assume valid targets).
// Outputs: loss [N] and lse [N] (every row, ignored ones included), dtype of the logits.
// Backward: dlogits_ij = dloss_i (p_ij - q_ij), recomputing p from the logits and lse.
// Not in place.
#pragma once

#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct CrossEntropyOptions {
  double label_smoothing = 0.0;  // eps in [0, 1]: mass spread uniformly over all V classes
  int32_t ignore_index = 0;      // the pad id: rows with this target are ignored (any value)
};

struct CrossEntropyResult {
  Tensor loss;  // [N], 0 at ignored rows
  Tensor lse;   // [N], log-sum-exp of each row's logits (kept for the backward pass)
};

CrossEntropyResult cross_entropy(const Tensor& logits, const Tensor& targets,
                                 const CrossEntropyOptions& o = {});
// dloss [N] (dtype of the logits) -> dlogits [N, V].
Tensor cross_entropy_backward(const Tensor& dloss, const Tensor& logits, const Tensor& targets,
                              const Tensor& lse, const CrossEntropyOptions& o = {});

// Kernels see the logits as [rows, V] (rows = targets.numel()); loss, lse, dlogits are
// allocated by the caller with the shapes above; targets are valid (see above).
using CrossEntropyKernel = void(const Tensor& logits, const Tensor& targets,
                                const CrossEntropyOptions& o, Tensor& loss, Tensor& lse);
using CrossEntropyBackwardKernel = void(const Tensor& dloss, const Tensor& logits,
                                        const Tensor& targets, const Tensor& lse,
                                        const CrossEntropyOptions& o, Tensor& dlogits);
REALMT_KERNEL_SLOT(cross_entropy_kernel, CrossEntropyKernel);
REALMT_KERNEL_SLOT(cross_entropy_backward_kernel, CrossEntropyBackwardKernel);

}  // namespace realmt::ops
