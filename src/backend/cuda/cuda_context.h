// Per-device CUDA state for kernels: the current stream and the cuBLAS / cuBLASLt handles,
// each created on first use and kept for the life of the process. Only backend .cc/.cu
// files include this header (it includes CUDA's headers; core headers stay CUDA-free).
//
// Ordering contract: every kernel, copy and cuBLAS call for device d is issued on
// current_stream(d). The caching allocator hands a freed block to the next allocation at
// once; that is safe because all work on a device is ordered on this one stream.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace realmt::cuda {

// Visible CUDA devices; 0 (never an error) when there is no GPU or no usable driver.
int device_count();
// Throws a clear realmt::Error unless 0 <= device < device_count().
void check_device(int device);
// Makes `device` the calling thread's current device (cudaSetDevice, skipped when current).
void set_device(int device);

// The stream on which work for `device` is issued (a non-blocking stream of its own).
cudaStream_t current_stream(int device);
// cuBLAS handle bound to current_stream(device), default (non-TF32) math mode.
cublasHandle_t cublas_handle(int device);
// cuBLASLt handle for `device` (Lt calls take the stream and the workspace per call).
cublasLtHandle_t cublaslt_handle(int device);
// Properties of `device` (queried once).
const cudaDeviceProp& device_properties(int device);

// Waits for all work issued on current_stream(device).
void synchronize_stream(int device);

// Threads per block for elementwise kernels, and the grid that covers n elements with one
// element per thread (capped; kernels loop with a grid stride beyond the cap).
inline constexpr int kBlockSize = 256;
inline unsigned grid_for(long long n, int block = kBlockSize) {
  const long long blocks = (n + block - 1) / block;
  constexpr long long kMaxBlocks = 65535LL * 16;  // enough to fill any GPU many times
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

}  // namespace realmt::cuda
