// Reductions inside a warp or a thread block, for kernels that reduce rows (softmax, sums,
// norms, losses). A row is handled by a "group": one warp when rows are short (several rows
// per block), or one whole block when they are long.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

namespace realmt::cuda {

inline constexpr int kWarpSize = 32;

struct SumOp {
  template <typename C>
  __device__ static C apply(C a, C b) {
    return a + b;
  }
  template <typename C>
  __device__ static C identity() {
    return C(0);
  }
};
// Maximum that ignores a NaN in b (like the CPU's `v > best ? v : best`).
struct MaxOp {
  template <typename C>
  __device__ static C apply(C a, C b) {
    return b > a ? b : a;
  }
  template <typename C>
  __device__ static C identity() {
    return -INFINITY;
  }
};

template <typename Op, typename C>
__device__ __forceinline__ C warp_reduce(C v) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1)
    v = Op::apply(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Every thread of the block gets the result. `smem` holds kWarpSize values; the function
// synchronises before reusing it, so calls may follow each other directly.
template <typename Op, typename C>
__device__ __forceinline__ C block_reduce(C v, C* smem) {
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const int warps = (blockDim.x + kWarpSize - 1) / kWarpSize;
  v = warp_reduce<Op>(v);
  __syncthreads();  // smem may still be read by a previous call
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  v = lane < warps ? smem[lane] : Op::template identity<C>();
  return warp_reduce<Op>(v);
}

// A row per warp (kWarp) or per block. All threads of a group share the row, so a group
// leaves a kernel's row loop together and the collective reductions stay safe.
template <bool kWarp>
struct RowGroup {
  // Rows a block of `threads` threads handles at once.
  static int rows_per_block(int threads) { return kWarp ? threads / kWarpSize : 1; }
  __device__ static long long first_row() {
    return kWarp ? (long long)blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize
                 : (long long)blockIdx.x;
  }
  __device__ static long long row_stride() {
    return kWarp ? (long long)gridDim.x * (blockDim.x / kWarpSize) : (long long)gridDim.x;
  }
  __device__ static int lane() { return kWarp ? threadIdx.x % kWarpSize : threadIdx.x; }
  __device__ static int size() { return kWarp ? kWarpSize : blockDim.x; }
  // A barrier for the group that also orders its global-memory accesses (a lane's read of an
  // element before another lane overwrites it).
  __device__ static void sync() {
    if constexpr (kWarp)
      __syncwarp();
    else
      __syncthreads();
  }
  template <typename Op, typename C>
  __device__ static C reduce(C v, C* smem) {
    if constexpr (kWarp)
      return warp_reduce<Op>(v);
    else
      return block_reduce<Op>(v, smem);
  }
};

// The largest block row_launch picks. Row kernels are declared __launch_bounds__(kMaxRowBlock)
// so that the compiler keeps them within the registers a block that size may use.
inline constexpr int kMaxRowBlock = 1024;

// Launch shape for `rows` rows of `n` elements: a warp per row up to 1024 elements.
struct RowLaunch {
  bool warp;
  unsigned grid;
  int block;
};
inline RowLaunch row_launch(long long rows, long long n) {
  RowLaunch l;
  l.warp = n <= 1024;
  l.block = l.warp ? 256 : (n >= 8192 ? kMaxRowBlock : 512);
  const long long per_block = l.warp ? l.block / kWarpSize : 1;
  long long g = (rows + per_block - 1) / per_block;
  constexpr long long kMaxGrid = 1LL << 20;  // rows beyond this are looped over
  l.grid = static_cast<unsigned>(g < 1 ? 1 : (g > kMaxGrid ? kMaxGrid : g));
  return l;
}

}  // namespace realmt::cuda
