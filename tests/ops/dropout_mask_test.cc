// The keep flags of fused kernels (ops/dropout_mask_cpu.h, vectorised Philox) equal the
// definition element by element: dropout_keep(philox_u32(seed, first + e), threshold), at
// offsets and lengths that are not multiples of the 4-number blocks or the 8-block groups, and
// across the 2^32-block boundary where the counter's low word wraps.
#include <gtest/gtest.h>

#include <vector>

#include "core/rng.h"
#include "ops/dropout_mask_cpu.h"

namespace realmt::ops {
namespace {

TEST(DropoutMask, FlagsEqualThePhiloxDefinition) {
  const uint64_t wrap = (uint64_t(1) << 32) * 4 - 26;  // 6.5 blocks before the low word wraps
  for (double p : {0.1, 0.5}) {
    const uint32_t threshold = dropout_threshold(p);
    for (uint64_t first : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(5), uint64_t(37), uint64_t(123456789), wrap}) {
      for (int64_t n : {1, 3, 4, 7, 31, 32, 33, 100, 1000}) {
        std::vector<uint8_t> keep(n, 7);
        dropout_keep_flags(99, first, n, threshold, keep.data());
        for (int64_t e = 0; e < n; ++e)
          ASSERT_EQ(keep[e], dropout_keep(philox_u32(99, first + e), threshold) ? 1 : 0)
              << "p " << p << " first " << first << " n " << n << " e " << e;
      }
    }
  }
}

}  // namespace
}  // namespace realmt::ops
