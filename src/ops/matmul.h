// matmul: C = alpha * op(A) @ op(B), op = optional transpose of the last two axes.
//   A [M, K] (or [K, M] with trans_a), B [K, N] (or [N, K] with trans_b) -> C [M, N]
//   Batched: A [Bt..., M, K] with B [Bt..., K, N] (same leading extents); either operand may
//   instead be 2-D and shared by every batch member (a projection of [B, T, D] activations).
// dtypes: f32 and f64 on the CPU (BLAS); the CUDA backend adds f16 and bf16 (f32 accumulate).
// TF32: f32 products on the GPU are exact f32 by default. With allow_tf32 (per call) or inside an
// AllowTf32 scope (process-wide, what realmt-train's `precision: tf32` uses) cuBLAS may round the
// inputs to TF32 (10-bit mantissa, f32 accumulate) and use tensor cores; the CPU ignores it.
// Not in place; C is a fresh tensor on the operands' device.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct MatmulOptions {
  bool trans_a = false;
  bool trans_b = false;
  float alpha = 1.0f;
  bool allow_tf32 = false;  // f32 on CUDA: TF32 tensor cores (see above)
};

// Whether f32 GEMMs on CUDA may use TF32 outside of per-call options (default false).
bool tf32_allowed();
// Sets the process-wide TF32 permission for its lifetime and restores the previous one after.
class AllowTf32 {
 public:
  explicit AllowTf32(bool allow);
  ~AllowTf32();
  AllowTf32(const AllowTf32&) = delete;
  AllowTf32& operator=(const AllowTf32&) = delete;

 private:
  bool previous_;
};

Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options = {});
// C = alpha * op(A) @ op(B) + beta * C, into an existing C of the result's shape.
void matmul_into(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options,
                 float beta);

// The GEMM problem after argument checks: `batch` products of M x K by K x N, with element
// strides between consecutive batch members (0 for a shared B).
struct GemmShape {
  int64_t batch, m, n, k;
  int64_t stride_a, stride_b, stride_c;
  bool trans_a, trans_b;
  float alpha, beta;
  bool allow_tf32 =
      false;  // f32 only: TF32 inputs (MatmulOptions::allow_tf32 or an AllowTf32 scope)
};

REALMT_KERNEL_SLOT(matmul_kernel,
                   void(const Tensor& a, const Tensor& b, Tensor& c, const GemmShape& g));

}  // namespace realmt::ops
