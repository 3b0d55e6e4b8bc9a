// Philox-4x32-10 for kernels, bit-identical to core/rng.cc: element e of the stream
// (seed, offset) is lane (offset + e) % 4 of philox4x32_10(seed, 0, (offset + e) / 4), so a
// CUDA dropout mask equals the CPU's. Host-callable too, which is how tests/cuda checks it
// against the CPU generator on machines without a GPU.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define REALMT_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define REALMT_HOST_DEVICE inline
#endif

namespace realmt::cuda {

struct Philox4 {
  uint32_t x[4];
};

REALMT_HOST_DEVICE Philox4 philox4x32_10(uint64_t key, uint64_t counter_hi, uint64_t counter_lo) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = static_cast<uint32_t>(counter_lo), c1 = static_cast<uint32_t>(counter_lo >> 32);
  uint32_t c2 = static_cast<uint32_t>(counter_hi), c3 = static_cast<uint32_t>(counter_hi >> 32);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {  // constant trip count: nvcc unrolls it
    const uint64_t p0 = uint64_t(kM0) * c0, p1 = uint64_t(kM1) * c2;  // mul.hi/lo on the GPU
    const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    const uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += kW0;
    k1 += kW1;
  }
  return Philox4{{c0, c1, c2, c3}};
}

// Element `index` of the stream of `seed` (index = offset + e).
REALMT_HOST_DEVICE uint32_t philox_u32(uint64_t seed, uint64_t index) {
  return philox4x32_10(seed, 0, index >> 2).x[index & 3];
}

// A float in [0, 1) with 24 random bits, as core/rng.h's u32_to_unit_float.
REALMT_HOST_DEVICE float u32_to_unit_float(uint32_t x) {
  return static_cast<float>(x >> 8) * (1.0f / 16777216.0f);
}

}  // namespace realmt::cuda

#undef REALMT_HOST_DEVICE
