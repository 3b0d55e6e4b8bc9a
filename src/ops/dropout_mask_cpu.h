// Dropout keep flags for CPU kernels that fuse dropout into another pass (attention, the
// sub-layer epilogue, bias + activation). Element e of a stream (seed, first + e) is kept iff
// dropout_keep(philox_u32(seed, first + e), threshold), exactly as ops::dropout decides
// (ops/dropout.h), so a fused kernel and the separate op draw the same mask. The Philox blocks
// are computed 8 at a time in lanes the compiler vectorises (32x32->64-bit multiplies).
#pragma once

#include <cstdint>

#include "ops/dropout.h"

namespace realmt::ops {

// keep[e] = 1 or 0 for e in [0, n): stream indices [first, first + n).
inline void dropout_keep_flags(uint64_t seed, uint64_t first, int64_t n, uint32_t threshold, uint8_t* keep) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  constexpr int kLanes = 8;
  if (n <= 0) return;
  const uint64_t end = first + static_cast<uint64_t>(n);
  const uint32_t key0 = static_cast<uint32_t>(seed), key1 = static_cast<uint32_t>(seed >> 32);
  for (uint64_t block = first >> 2; block * 4 < end; block += kLanes) {
    uint32_t c0[kLanes], c1[kLanes], c2[kLanes], c3[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t b = block + l;  // counter_lo = block, counter_hi = 0 (core/rng.h mapping)
      c0[l] = static_cast<uint32_t>(b);
      c1[l] = static_cast<uint32_t>(b >> 32);
      c2[l] = 0;
      c3[l] = 0;
    }
    uint32_t k0 = key0, k1 = key1;
    for (int round = 0; round < 10; ++round) {
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) {
        const uint64_t p0 = uint64_t(kM0) * c0[l], p1 = uint64_t(kM1) * c2[l];
        const uint32_t n0 = uint32_t(p1 >> 32) ^ c1[l] ^ k0, n2 = uint32_t(p0 >> 32) ^ c3[l] ^ k1;
        c1[l] = uint32_t(p1);
        c3[l] = uint32_t(p0);
        c0[l] = n0;
        c2[l] = n2;
      }
      k0 += kW0;
      k1 += kW1;
    }
    for (int l = 0; l < kLanes; ++l) {
      const uint32_t lanes[4] = {c0[l], c1[l], c2[l], c3[l]};
      const uint64_t base = (block + l) * 4;
      for (int j = 0; j < 4; ++j) {
        const uint64_t i = base + j;
        if (i >= first && i < end) keep[i - first] = dropout_keep(lanes[j], threshold) ? 1 : 0;
      }
    }
  }
}

}  // namespace realmt::ops
