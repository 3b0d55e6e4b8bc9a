// CUDA matmul through cuBLAS: one cublasGemmStridedBatchedEx per call. cuBLAS is
// column-major and a row-major [M, N] matrix is the column-major [N, M] matrix C^T, so we
// compute C^T = op(B)^T op(A)^T: B comes first, A second, and the leading dimensions are
// the row lengths the CPU kernel passes to row-major BLAS. A shared B has batch stride 0.
// Compute types: f32 in plain f32 by default (results match the CPU reference), or
// CUBLAS_COMPUTE_32F_FAST_TF32 when the GemmShape allows TF32 (inputs rounded to a 10-bit
// mantissa, f32 accumulation, tensor cores); f16 and bf16 with f32 accumulation (tensor
// cores); f64 in f64.
#include <climits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "ops/matmul.h"

namespace realmt::ops {
namespace {

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(DType t) {
  switch (t) {
    case DType::kF32: return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case DType::kF64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case DType::kF16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case DType::kBF16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    default: throw_unsupported_dtype("matmul", t);
  }
}

void matmul_cuda(const Tensor& a, const Tensor& b, Tensor& c, const GemmShape& g) {
  if (g.batch == 0 || g.m == 0 || g.n == 0) return;
  REALMT_CHECK(g.m <= INT_MAX && g.n <= INT_MAX && g.k <= INT_MAX && g.batch <= INT_MAX,
               "matmul: extents {}x{}x{} (batch {}) exceed cuBLAS's 32-bit limits", g.m, g.n, g.k,
               g.batch);
  const int device = c.device().index;
  cublasHandle_t handle = cuda::cublas_handle(device);
  cuda::set_device(device);
  GemmTypes types = gemm_types(a.dtype());
  if (a.dtype() == DType::kF32 && g.allow_tf32) types.compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int lda = static_cast<int>(g.trans_a ? g.m : g.k);
  const int ldb = static_cast<int>(g.trans_b ? g.k : g.n);
  const cublasOperation_t op_a = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  // alpha and beta have the compute type's precision (host pointers: the default mode).
  const double alpha64 = g.alpha, beta64 = g.beta;
  const float alpha32 = g.alpha, beta32 = g.beta;
  const bool f64 = types.compute == CUBLAS_COMPUTE_64F;
  const void* alpha = f64 ? static_cast<const void*>(&alpha64) : static_cast<const void*>(&alpha32);
  const void* beta = f64 ? static_cast<const void*>(&beta64) : static_cast<const void*>(&beta32);
  REALMT_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      handle, op_b, op_a, n, m, k, alpha, b.raw(), types.data, ldb, g.stride_b, a.raw(), types.data,
      lda, g.stride_a, beta, c.raw(), types.data, n, g.stride_c, static_cast<int>(g.batch),
      types.compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

REALMT_REGISTER_KERNEL(matmul_kernel, kCuda, matmul_cuda);

}  // namespace realmt::ops
