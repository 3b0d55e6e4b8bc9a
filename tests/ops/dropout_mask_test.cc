// The keep flags of fused kernels (ops/dropout_mask_cpu.h, vectorised Philox) equal the
// definition element by element: dropout_keep(philox_u32(seed, first + e), threshold), at
// offsets and lengths that are not multiples of the 4-number blocks or the 8-block groups, and
// across the 2^32-block boundary where the counter's low word wraps; at every CPU level this
// machine runs (the scalar loop at baseline, AVX2 above).
#include <gtest/gtest.h>

#include <vector>

#include "core/cpu_isa.h"
#include "core/rng.h"
#include "ops/dropout_mask_cpu.h"

namespace realmt::ops {
namespace {

TEST(DropoutMask, FlagsEqualThePhiloxDefinition) {
  const uint64_t wrap = (uint64_t(1) << 32) * 4 - 26;  // 6.5 blocks before the low word wraps
  for (int level = 0; level <= static_cast<int>(cpu_isa_configured()); ++level) {
    const CpuIsa isa = static_cast<CpuIsa>(level);
    const CpuIsaScope scope(isa);
    for (double p : {0.1, 0.5}) {
      const uint32_t threshold = dropout_threshold(p);
      for (uint64_t first : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(5), uint64_t(37),
                             uint64_t(123456789), wrap}) {
        for (int64_t n : {1, 3, 4, 7, 31, 32, 33, 100, 1000}) {
          std::vector<uint8_t> keep(n, 7);
          dropout_keep_flags(99, first, n, threshold, keep.data());
          for (int64_t e = 0; e < n; ++e)
            ASSERT_EQ(keep[e], dropout_keep(philox_u32(99, first + e), threshold) ? 1 : 0)
                << "CPU level " << cpu_isa_name(isa) << ", p " << p << " first " << first << " n "
                << n << " e " << e;
        }
      }
    }
  }
}

// keep iff (bits >> 8) >= threshold: an element whose 24 bits equal the threshold is kept, one
// just below it dropped (the vector compare is a signed > against threshold - 1).
TEST(DropoutMask, ThresholdEqualToTheBitsKeeps) {
  constexpr int64_t n = 64;
  for (int level = 0; level <= static_cast<int>(cpu_isa_configured()); ++level) {
    const CpuIsaScope scope(static_cast<CpuIsa>(level));
    for (int64_t e : {int64_t(0), int64_t(13), int64_t(40)}) {
      const uint32_t r = philox_u32(7, 1000 + e) >> 8;
      if (r == 0) continue;
      std::vector<uint8_t> keep(n);
      dropout_keep_flags(7, 1000, n, r, keep.data());
      EXPECT_EQ(keep[e], 1) << "level " << level << " e " << e;
      dropout_keep_flags(7, 1000, n, r + 1, keep.data());
      EXPECT_EQ(keep[e], 0) << "level " << level << " e " << e;
    }
  }
}

}  // namespace
}  // namespace realmt::ops
