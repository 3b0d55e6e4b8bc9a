// Checked calls for the CUDA runtime and cuBLAS(Lt): every call goes through one of these
// macros, and a failure throws realmt::Error naming the call, the library's error name and
// text, and the caller's file:line. Only backend .cc/.cu files include this header.
//
//   REALMT_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, stream));
//   REALMT_CUBLAS_CHECK(cublasGemmStridedBatchedEx(...));   // also for cublasLt* calls
//   my_kernel<<<grid, block, 0, stream>>>(...);
//   REALMT_CUDA_CHECK_LAUNCH();                               // launch-configuration errors
//
// NCCL's checks live in nccl_check.h (only the NCCL code includes nccl.h).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "core/error.h"

// A failed runtime call also sets the thread's "last error"; reading it back clears it (for
// errors that are not sticky), so that a later REALMT_CUDA_CHECK_LAUNCH does not report a
// failure that was already thrown.
#define REALMT_CUDA_CHECK(call)                                                              \
  do {                                                                                       \
    const cudaError_t realmt_cuda_err_ = (call);                                             \
    if (realmt_cuda_err_ != cudaSuccess) [[unlikely]] {                                      \
      (void)cudaGetLastError();                                                              \
      REALMT_FAIL("CUDA call {} failed: {} ({})", #call, cudaGetErrorName(realmt_cuda_err_), \
                  cudaGetErrorString(realmt_cuda_err_));                                     \
    }                                                                                        \
  } while (0)

// After a kernel launch: reports a bad launch configuration (or an earlier asynchronous
// fault) at the launch site.
#define REALMT_CUDA_CHECK_LAUNCH() REALMT_CUDA_CHECK(cudaGetLastError())

// cuBLASLt returns the same cublasStatus_t codes, so this macro serves both libraries.
#define REALMT_CUBLAS_CHECK(call)                                                                  \
  do {                                                                                             \
    const cublasStatus_t realmt_cublas_st_ = (call);                                               \
    if (realmt_cublas_st_ != CUBLAS_STATUS_SUCCESS) [[unlikely]]                                   \
      REALMT_FAIL("cuBLAS call {} failed: {} ({})", #call, cublasGetStatusName(realmt_cublas_st_), \
                  cublasGetStatusString(realmt_cublas_st_));                                       \
  } while (0)
