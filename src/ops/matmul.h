// matmul: C = alpha * op(A) @ op(B), op = optional transpose of the last two axes.
//   A [M, K] (or [K, M] with trans_a), B [K, N] (or [N, K] with trans_b) -> C [M, N]
//   Batched: A [Bt..., M, K] with B [Bt..., K, N] (same leading extents); either operand may
//   instead be 2-D and shared by every batch member (a projection of [B, T, D] activations).
// dtypes: f32 and f64 on the CPU (BLAS); the CUDA backend adds f16 and bf16 (f32 accumulate).
// Not in place; C is a fresh tensor on the operands' device.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct MatmulOptions {
  bool trans_a = false;
  bool trans_b = false;
  float alpha = 1.0f;
};

Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options = {});
// C = alpha * op(A) @ op(B) + beta * C, into an existing C of the result's shape.
void matmul_into(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options, float beta);

// The GEMM problem after argument checks: `batch` products of M x K by K x N, with element
// strides between consecutive batch members (0 for a shared B).
struct GemmShape {
  int64_t batch, m, n, k;
  int64_t stride_a, stride_b, stride_c;
  bool trans_a, trans_b;
  float alpha, beta;
};

REALMT_KERNEL_SLOT(matmul_kernel, void(const Tensor& a, const Tensor& b, Tensor& c, const GemmShape& g));

}  // namespace realmt::ops
