// The keep flags of ops/dropout_mask_cpu.h. Compiled once for the baseline target: the AVX2
// version carries its own target attribute and runs only when cpu_isa() is avx2 or above, so a
// portable build uses it on CPUs that have it and never on those that do not.
#include "ops/dropout_mask_cpu.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define REALMT_PHILOX_AVX2 1
#include <immintrin.h>
#endif

#include "core/cpu_isa.h"
#include "ops/dropout.h"

namespace realmt::ops {
namespace {

constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

// Flags of the four numbers of one block that fall in [first, end).
void store_block_flags(const uint32_t lanes[4], uint64_t block, uint64_t first, uint64_t end,
                       uint32_t threshold, uint8_t* keep) {
  const uint64_t base = block * 4;
  for (int j = 0; j < 4; ++j) {
    const uint64_t i = base + j;
    if (i >= first && i < end) keep[i - first] = dropout_keep(lanes[j], threshold) ? 1 : 0;
  }
}

void philox_scalar_block(uint64_t block, uint32_t key0, uint32_t key1, uint32_t out[4]) {
  uint32_t c0 = static_cast<uint32_t>(block), c1 = static_cast<uint32_t>(block >> 32), c2 = 0,
           c3 = 0;
  uint32_t k0 = key0, k1 = key1;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(kPhiloxM0) * c0, p1 = uint64_t(kPhiloxM1) * c2;
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0, n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p1);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

// Blocks [block, last_block] one at a time.
void scalar_blocks(uint64_t block, uint64_t last_block, uint32_t key0, uint32_t key1,
                   uint64_t first, uint64_t end, uint32_t threshold, uint8_t* keep) {
  for (; block <= last_block; ++block) {
    uint32_t lanes[4];
    philox_scalar_block(block, key0, key1, lanes);
    store_block_flags(lanes, block, first, end, threshold, keep);
  }
}

#if REALMT_PHILOX_AVX2
// hi and lo 32-bit halves of the eight products m * x (unsigned).
__attribute__((target("avx2"))) inline void mul_hi_lo(__m256i m, __m256i x, __m256i& hi,
                                                      __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(m, x);                        // lanes 0, 2, 4, 6
  const __m256i odd = _mm256_mul_epu32(m, _mm256_srli_epi64(x, 32));  // lanes 1, 3, 5, 7
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

// Groups of eight blocks from `block` while whole groups fit before last_block; returns the
// first block not done.
__attribute__((target("avx2"))) uint64_t avx2_blocks(uint64_t block, uint64_t last_block,
                                                     uint32_t key0, uint32_t key1, uint64_t first,
                                                     uint64_t end, uint32_t threshold,
                                                     uint8_t* keep) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kPhiloxM0)),
                m1 = _mm256_set1_epi32(static_cast<int>(kPhiloxM1));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i thr =
      _mm256_set1_epi32(static_cast<int>(threshold) - 1);  // keep iff (bits >> 8) > threshold - 1
  for (; block + 8 <= last_block + 1; block += 8) {
    // Counters block..block+7 (counter_hi = 0); the high words only change past 2^32 blocks.
    __m256i c0 =
        _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(block))), lane);
    __m256i c1 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(block >> 32)));
    if (static_cast<uint32_t>(block) > 0xFFFFFFFFu - 7u) {  // the low words wrap inside this group
      alignas(32) uint32_t lo[8], hi[8];
      for (int l = 0; l < 8; ++l) {
        lo[l] = static_cast<uint32_t>(block + l);
        hi[l] = static_cast<uint32_t>((block + l) >> 32);
      }
      c0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
      c1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
    }
    __m256i c2 = _mm256_setzero_si256(), c3 = _mm256_setzero_si256();
    uint32_t k0 = key0, k1 = key1;
    for (int round = 0; round < 10; ++round) {
      __m256i hi0, lo0, hi1, lo1;
      mul_hi_lo(m0, c0, hi0, lo0);
      mul_hi_lo(m1, c2, hi1, lo1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
      c1 = lo1;
      c3 = lo0;
      k0 += kPhiloxW0;
      k1 += kPhiloxW1;
    }
    // Keep flags of word w of block l: (bits >> 8) >= threshold, signed compare on 24-bit values.
    const __m256i f0 = _mm256_cmpgt_epi32(_mm256_srli_epi32(c0, 8), thr);
    const __m256i f1 = _mm256_cmpgt_epi32(_mm256_srli_epi32(c1, 8), thr);
    const __m256i f2 = _mm256_cmpgt_epi32(_mm256_srli_epi32(c2, 8), thr);
    const __m256i f3 = _mm256_cmpgt_epi32(_mm256_srli_epi32(c3, 8), thr);
    const uint32_t b0 = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(f0)));
    const uint32_t b1 = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(f1)));
    const uint32_t b2 = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(f2)));
    const uint32_t b3 = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(f3)));
    const uint64_t base = block * 4;
    const bool inside = base >= first && base + 32 <= end;
    for (int l = 0; l < 8; ++l) {
      const uint8_t w[4] = {
          static_cast<uint8_t>((b0 >> l) & 1), static_cast<uint8_t>((b1 >> l) & 1),
          static_cast<uint8_t>((b2 >> l) & 1), static_cast<uint8_t>((b3 >> l) & 1)};
      if (inside) {
        uint8_t* out = keep + (base - first) + 4 * l;
        out[0] = w[0];
        out[1] = w[1];
        out[2] = w[2];
        out[3] = w[3];
      } else {
        for (int j = 0; j < 4; ++j) {
          const uint64_t i = base + 4 * l + j;
          if (i >= first && i < end) keep[i - first] = w[j];
        }
      }
    }
  }
  return block;
}
#endif

}  // namespace

void dropout_keep_flags(uint64_t seed, uint64_t first, int64_t n, uint32_t threshold,
                        uint8_t* keep) {
  if (n <= 0) return;
  const uint64_t end = first + static_cast<uint64_t>(n);
  const uint32_t key0 = static_cast<uint32_t>(seed), key1 = static_cast<uint32_t>(seed >> 32);
  uint64_t block = first >> 2;
  const uint64_t last_block = (end - 1) >> 2;
#if REALMT_PHILOX_AVX2
  if (cpu_isa() >= CpuIsa::kAvx2)
    block = avx2_blocks(block, last_block, key0, key1, first, end, threshold, keep);
#endif
  scalar_blocks(block, last_block, key0, key1, first, end, threshold, keep);
}

}  // namespace realmt::ops
