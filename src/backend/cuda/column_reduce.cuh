// Deterministic column sums for kernels' parameter gradients (bias, gamma, omega): K sums
// over the rows of [rows, cols] values f(r, j), without atomics. Stage 1: a block takes a
// strip of 32 columns and a chunk of rows; 8 row lanes add every 8th row in row order, then
// the lanes are added in lane order into partial[chunk][k][j] (double). Stage 2 adds the
// partials in chunk order. The chunking depends on the shape only, so every run gives the
// same bits (the CPU kernels sum in another fixed order: results agree to rounding).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "core/tensor.h"

namespace realmt::cuda {

inline constexpr int kColumnStrip = 32;    // columns per block (threadIdx.x)
inline constexpr int kColumnRowLanes = 8;  // rows added side by side (threadIdx.y)

// Where sum k goes: out[k] (nullptr: not wanted); accumulate adds to what is there.
template <typename T, int K>
struct ColumnOutputs {
  T* out[K];
  bool accumulate;
};

// F: a struct with `__device__ void operator()(long long r, long long j, double (&acc)[K]) const`
// adding row r's contributions to the K sums of column j.
template <int K, typename F>
__global__ void column_partials(F f, long long rows, long long cols, long long chunk_rows,
                                double* partial) {
  __shared__ double s[kColumnRowLanes][K][kColumnStrip + 1];
  const long long j = blockIdx.x * (long long)kColumnStrip + threadIdx.x;
  const long long chunk = blockIdx.y;
  const long long r0 = chunk * chunk_rows;
  const long long r1 = r0 + chunk_rows < rows ? r0 + chunk_rows : rows;
  double acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = 0;
  if (j < cols)
    for (long long r = r0 + threadIdx.y; r < r1; r += kColumnRowLanes) f(r, j, acc);
#pragma unroll
  for (int k = 0; k < K; ++k) s[threadIdx.y][k][threadIdx.x] = acc[k];
  __syncthreads();
  if (threadIdx.y == 0 && j < cols) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      double t = s[0][k][threadIdx.x];
      for (int l = 1; l < kColumnRowLanes; ++l) t += s[l][k][threadIdx.x];  // lane order
      partial[(chunk * K + k) * cols + j] = t;
    }
  }
}

template <typename T, int K>
__global__ void column_finish(const double* partial, long long chunks, long long cols,
                              ColumnOutputs<T, K> o) {
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < cols;
       j += (long long)gridDim.x * blockDim.x) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (!o.out[k]) continue;
      double acc = 0;
      for (long long c = 0; c < chunks; ++c) acc += partial[(c * K + k) * cols + j];  // chunk order
      if (o.accumulate) acc += static_cast<double>(load(o.out[k][j]));
      o.out[k][j] = store<T>(static_cast<compute_t<T>>(acc));
    }
  }
}

// Row chunks: enough blocks to fill a GPU (about 1024 with the column strips), at least 32
// rows a chunk, at most 256 chunks (so the partials stay small).
struct ColumnPlan {
  long long chunk_rows, chunks;
};
inline ColumnPlan column_plan(long long rows, long long cols) {
  const long long strips = (cols + kColumnStrip - 1) / kColumnStrip;
  const long long wanted = std::max<long long>(1, (1024 + strips - 1) / strips);
  const long long chunks = std::clamp<long long>(std::min((rows + 31) / 32, wanted), 1, 256);
  const long long chunk_rows = std::max<long long>(1, (rows + chunks - 1) / chunks);
  return {chunk_rows, std::max<long long>(1, (rows + chunk_rows - 1) / chunk_rows)};
}

// Launches both stages on `stream` (rows, cols > 0); the partials live in a scratch tensor on
// `device`, freed on return (safe: all work of a device is ordered on its one stream).
template <typename T, int K, typename F>
void column_sums(const F& f, long long rows, long long cols, const ColumnOutputs<T, K>& outs,
                 Device device, cudaStream_t stream) {
  const ColumnPlan plan = column_plan(rows, cols);
  Tensor partial = Tensor::empty({plan.chunks * K * cols}, DType::kF64, device);
  double* p = static_cast<double*>(partial.raw());
  const dim3 grid(static_cast<unsigned>((cols + kColumnStrip - 1) / kColumnStrip),
                  static_cast<unsigned>(plan.chunks));
  column_partials<K>
      <<<grid, dim3(kColumnStrip, kColumnRowLanes), 0, stream>>>(f, rows, cols, plan.chunk_rows, p);
  REALMT_CUDA_CHECK_LAUNCH();
  column_finish<T, K><<<grid_for(cols), kBlockSize, 0, stream>>>(p, plan.chunks, cols, outs);
  REALMT_CUDA_CHECK_LAUNCH();
}

}  // namespace realmt::cuda
