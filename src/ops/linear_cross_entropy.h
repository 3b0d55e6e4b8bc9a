// The output projection fused with label-smoothed cross-entropy, taken in chunks of rows so the
// [N, V] logits are never written whole.
//   h [N, D], w [V, D] (the tied embedding table: logits = h w^T + bias), bias optional [V],
//   targets i32 [N] (rows whose target is o.ignore_index count 0); losses as ops/cross_entropy.h:
//   loss_i = lse_i - (1 - eps) x_it - (eps / V) sum_j x_ij.
// With with_grad, the same pass gives the gradient of L = sum_i loss_i, while each chunk's
// logits are in cache: dZ = P - Q (0 at ignored rows), dh = dZ w, dw = dZ^T h, dbias = colsum dZ
// (one GEMM each per chunk; dw and dbias accumulate over chunks in chunk order). A caller with
// an upstream gradient g of L scales them by g (graph::linear_cross_entropy).
// Outputs: loss [N] in f32 (f64 for f64 inputs: half-precision losses are summed in f32), and
// dh, dw, dbias in the inputs' dtype. Chunk rows: o.chunk_rows, or enough rows for ~8 MB of
// logits (at least 64). Not in place.
#pragma once

#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/cross_entropy.h"

namespace realmt::ops {

struct LinearCrossEntropyOptions {
  double label_smoothing = 0.0;
  int32_t ignore_index = 0;
  bool with_grad = false;
  int64_t chunk_rows = 0;  // 0: automatic
};

struct LinearCrossEntropyResult {
  Tensor loss;           // [N]
  Tensor dh, dw, dbias;  // with_grad only (dbias with a bias)
};

LinearCrossEntropyResult linear_cross_entropy(const Tensor& h, const Tensor& w, const Tensor& bias,
                                              const Tensor& targets,
                                              const LinearCrossEntropyOptions& o);

// One chunk: logits [R, V] -> loss [R]; with_grad overwrites the logits with dZ = P - Q.
using CrossEntropyRowsKernel = void(Tensor& logits, const Tensor& targets,
                                    const LinearCrossEntropyOptions& o, Tensor& loss);
REALMT_KERNEL_SLOT(cross_entropy_rows_kernel, CrossEntropyRowsKernel);

}  // namespace realmt::ops
