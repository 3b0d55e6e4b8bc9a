// The kernels' Philox (backend/cuda/philox.cuh) is bit-identical to the CPU generator:
// checked on the host, so it runs on machines without a GPU.
#include <gtest/gtest.h>

#include "backend/cuda/philox.cuh"
#include "core/rng.h"

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

}  // namespace
}  // namespace realmt
