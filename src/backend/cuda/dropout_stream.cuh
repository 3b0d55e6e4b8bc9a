// Dropout keep decisions inside fused kernels, identical to ops::dropout's (ops/dropout.h):
// element e of a stream whose element 0 has Philox index `first` is kept iff
// (philox_u32(seed, first + e) >> 8) >= threshold. Kernels that handle many consecutive
// elements walk the stream in Philox blocks (4 indices per philox4x32_10 call, as
// ops/dropout_cuda.cu does), so each block is computed once.
#pragma once

#include <cstdint>

#include "backend/cuda/philox.cuh"

namespace realmt::cuda {

struct DropoutStream {
  unsigned long long seed = 0, first = 0;  // Philox key; stream index of element 0
  uint32_t threshold = 0;                  // ops::dropout_threshold(p)
  bool active = false;                     // p > 0: without it every element is kept
};

// Number of Philox blocks that cover the elements [e0, e1) of the stream (e0 < e1).
__host__ __device__ __forceinline__ unsigned long long dropout_blocks(const DropoutStream& s, unsigned long long e0,
                                                                      unsigned long long e1) {
  return ((s.first + e1 - 1) >> 2) - ((s.first + e0) >> 2) + 1;
}

// The keep decision of element e alone (one Philox call per element: for scattered elements).
__device__ __forceinline__ bool dropout_keep_at(const DropoutStream& s, unsigned long long e) {
  return !s.active || (philox_u32(s.seed, s.first + e) >> 8) >= s.threshold;
}

// Calls fn(e, keep) for the elements e of [e0, e1) in Philox block b (0-based among the
// blocks covering [e0, e1)): at most 4 consecutive elements, in increasing order.
template <typename Fn>
__device__ __forceinline__ void dropout_block(const DropoutStream& s, unsigned long long e0, unsigned long long e1,
                                              unsigned long long b, Fn&& fn) {
  const unsigned long long block = ((s.first + e0) >> 2) + b;
  const unsigned long long lo_i = block * 4 > s.first + e0 ? block * 4 : s.first + e0;
  const unsigned long long hi_i = block * 4 + 4 < s.first + e1 ? block * 4 + 4 : s.first + e1;
  Philox4 bits{{0, 0, 0, 0}};
  if (s.active) bits = philox4x32_10(s.seed, 0, block);
  for (unsigned long long i = lo_i; i < hi_i; ++i)
    fn(i - s.first, !s.active || (bits.x[i & 3] >> 8) >= s.threshold);
}

}  // namespace realmt::cuda
