// The kernels' Philox (backend/cuda/philox.cuh) is bit-identical to the CPU generator, and the
// fused kernels' walk over a dropout stream in Philox blocks (backend/cuda/dropout_stream.cuh)
// draws the CPU kernels' keep flags: checked on the host, so it runs on machines without a GPU.
#include <gtest/gtest.h>

#include <vector>

#include "backend/cuda/dropout_stream.cuh"
#include "backend/cuda/philox.cuh"
#include "core/rng.h"
#include "ops/dropout_mask_cpu.h"

namespace realmt {
namespace {

TEST(CudaPhilox, MatchesCpuGenerator) {
  for (uint64_t seed : {uint64_t(0), uint64_t(1234), uint64_t(0xDEADBEEFCAFEF00Dull)}) {
    for (uint64_t index : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(4), uint64_t(1000003),
                           (uint64_t(1) << 34) + 5, ~uint64_t(0)}) {
      EXPECT_EQ(cuda::philox_u32(seed, index), philox_u32(seed, index)) << seed << " " << index;
      EXPECT_EQ(cuda::u32_to_unit_float(cuda::philox_u32(seed, index)),
                u32_to_unit_float(philox_u32(seed, index)));
    }
    const PhiloxBlock want = philox4x32_10(seed, 77, 123456789);
    const cuda::Philox4 got = cuda::philox4x32_10(seed, 77, 123456789);
    for (int lane = 0; lane < 4; ++lane) EXPECT_EQ(got.x[lane], want[lane]);
  }
}

// Rows [e0, e1) of a stream at offsets that are not multiples of 4, walked block by block as a
// row kernel does: every element visited once, in order, with the CPU's keep flag.
TEST(CudaPhilox, DropoutBlockWalkMatchesCpuKeepFlags) {
  const double p = 0.3;
  const uint32_t threshold = ops::dropout_threshold(p);
  for (const uint64_t first : {uint64_t(0), uint64_t(3), uint64_t(13), (uint64_t(1) << 33) + 1}) {
    for (const auto& [e0, e1] :
         {std::pair<uint64_t, uint64_t>{0, 1}, {0, 9}, {5, 6}, {7, 40}, {37, 1061}}) {
      std::vector<uint8_t> want(e1 - e0);
      ops::dropout_keep_flags(99, first + e0, static_cast<int64_t>(e1 - e0), threshold,
                              want.data());
      const cuda::DropoutStream s{99, first, threshold, true};
      std::vector<uint64_t> seen;
      std::vector<uint8_t> got;
      for (uint64_t b = 0; b < cuda::dropout_blocks(s, e0, e1); ++b)
        cuda::dropout_block(s, e0, e1, b, [&](unsigned long long e, bool keep) {
          seen.push_back(e);
          got.push_back(keep ? 1 : 0);
          EXPECT_EQ(keep, cuda::dropout_keep_at(s, e)) << e;
        });
      ASSERT_EQ(seen.size(), e1 - e0) << first << " " << e0;
      for (size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], e0 + k);
      EXPECT_EQ(got, want) << first << " [" << e0 << ", " << e1 << ")";
      // Without dropout: the same walk, every element kept.
      const cuda::DropoutStream off{99, first, threshold, false};
      size_t visited = 0;
      for (uint64_t b = 0; b < cuda::dropout_blocks(off, e0, e1); ++b)
        cuda::dropout_block(off, e0, e1, b, [&](unsigned long long, bool keep) {
          EXPECT_TRUE(keep);
          ++visited;
        });
      EXPECT_EQ(visited, e1 - e0);
    }
  }
}

}  // namespace
}  // namespace realmt
