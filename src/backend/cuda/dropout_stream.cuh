// Dropout keep decisions inside fused kernels, identical to ops::dropout's (ops/dropout.h):
// element e of a stream whose element 0 has Philox index `first` is kept iff
// (philox_u32(seed, first + e) >> 8) >= threshold. Kernels that handle many consecutive
// elements walk the stream in Philox blocks (4 indices per philox4x32_10 call, as
// ops/dropout_cuda.cu does), so each block is computed once. Host-callable too, which is how
// tests/cuda checks the block walk against the CPU's keep flags on machines without a GPU.
#pragma once

#include <cstdint>

#include "backend/cuda/philox.cuh"

#if defined(__CUDACC__)
#define REALMT_DROPOUT_HD __host__ __device__ __forceinline__
#else
#define REALMT_DROPOUT_HD inline
#endif

namespace realmt::cuda {

struct DropoutStream {
  unsigned long long seed = 0, first = 0;  // Philox key; stream index of element 0
  uint32_t threshold = 0;                  // ops::dropout_threshold(p)
  bool active = false;                     // p > 0: without it every element is kept
};

// Number of Philox blocks that cover the elements [e0, e1) of the stream (e0 < e1).
REALMT_DROPOUT_HD unsigned long long dropout_blocks(const DropoutStream& s, unsigned long long e0,
                                                    unsigned long long e1) {
  return ((s.first + e1 - 1) >> 2) - ((s.first + e0) >> 2) + 1;
}

// The keep decision of element e alone (one Philox call per element: for scattered elements).
REALMT_DROPOUT_HD bool dropout_keep_at(const DropoutStream& s, unsigned long long e) {
  return !s.active || (philox_u32(s.seed, s.first + e) >> 8) >= s.threshold;
}

// Calls fn(e, keep) for the elements e of [e0, e1) in Philox block b (0-based among the
// dropout_blocks(s, e0, e1) blocks covering [e0, e1)): at most 4 consecutive elements, in
// increasing order. Without dropout the same walk, with no numbers drawn.
template <typename Fn>
REALMT_DROPOUT_HD void dropout_block(const DropoutStream& s, unsigned long long e0,
                                     unsigned long long e1, unsigned long long b, Fn&& fn) {
  const unsigned long long block = ((s.first + e0) >> 2) + b;
  const unsigned long long lo = block * 4 > s.first + e0 ? block * 4 : s.first + e0;
  const unsigned long long hi = block * 4 + 4 < s.first + e1 ? block * 4 + 4 : s.first + e1;
  Philox4 bits{{0, 0, 0, 0}};
  if (s.active) bits = philox4x32_10(s.seed, 0, block);
  for (unsigned long long i = lo; i < hi; ++i)
    fn(i - s.first, !s.active || (bits.x[i & 3] >> 8) >= s.threshold);
}

}  // namespace realmt::cuda

#undef REALMT_DROPOUT_HD
