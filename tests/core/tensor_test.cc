#include "core/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/allocator.h"
#include "core/arena.h"
#include "core/fast_math.h"
#include "core/runtime.h"

namespace realmt {
namespace {

TEST(Shape, BasicsAndErrors) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s[-1], 4);
  EXPECT_EQ(s.outer(1), 2);
  EXPECT_EQ(s.inner(1), 4);
  EXPECT_EQ(s.str(), "[2, 3, 4]");
  EXPECT_THROW(s[3], Error);
  EXPECT_EQ(broadcast_shapes({3, 1, 5}, {4, 1}), (Shape{3, 4, 5}));
  EXPECT_THROW(broadcast_shapes({3, 2}, {3}), Error);
}

TEST(Tensor, CreateViewAndCopy) {
  Tensor t = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.device(), Device::cpu());
  Tensor r = t.reshape({3, -1});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_TRUE(r.shares_storage_with(t));
  Tensor row = t.narrow0(1, 2);
  EXPECT_EQ(row.to_vector<float>(), (std::vector<float>{4, 5, 6}));
  Tensor c = t.clone();
  c.data<float>()[0] = 9;
  EXPECT_EQ(t.at(0), 1.0);
  EXPECT_THROW(t.data<double>(), Error);
  EXPECT_THROW(t.reshape({4, 2}), Error);
  EXPECT_THROW(t.narrow0(1, 3), Error);
  EXPECT_EQ(Tensor::full({2}, 2.5, DType::kBF16).at(1), 2.5);
}

TEST(Half, RoundTripAndRounding) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(static_cast<float>(Half(f)), f) << f;
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(65520.0f))));  // rounds to even -> overflow
  EXPECT_EQ(static_cast<float>(Half(65519.0f)), 65504.0f);
  EXPECT_EQ(Half(1.0f + 1.0f / 2048).bits, Half(1.0f).bits);      // tie -> even
  EXPECT_EQ(Half(1.0f + 3.0f / 2048).bits, Half(1.0f).bits + 2);  // tie -> even (up)
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::nanf("")))));
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f)), 1.0f);
  EXPECT_EQ(BFloat16(1.0f + 1.0f / 256).bits, BFloat16(1.0f).bits);  // tie -> even
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
}

TEST(FastMath, ExpAndLogAccuracy) {
  double worst_exp = 0, worst_log = 0;
  for (float x = -87.0f; x < 88.0f; x += 0.01173f) {
    const double want = std::exp(double(x));
    worst_exp = std::max(worst_exp, std::abs(fast_exp(x) - want) / want);
  }
  for (float x = 1e-30f; x < 1e30f; x *= 1.0371f) {
    const double want = std::log(double(x));
    worst_log = std::max(worst_log, std::abs(fast_log(x) - want) / std::max(1.0, std::abs(want)));
  }
  EXPECT_LT(worst_exp, 3e-7);  // about 2 ulp
  EXPECT_LT(worst_log, 3e-7);
  EXPECT_EQ(fast_exp(-100.0f), 0.0f);
  EXPECT_EQ(fast_exp_masked(-std::numeric_limits<float>::infinity()), 0.0f);
}

TEST(Allocator, CachesAndCounts) {
  CachingAllocator a([](size_t n, int) { return std::malloc(n); },
                     [](void* p, int) { std::free(p); }, 0, "test");
  void* p = a.allocate(1000);
  EXPECT_EQ(a.stats().allocated_bytes, 1024u);
  a.deallocate(p, 1000);
  EXPECT_EQ(a.stats().cached_bytes, 1024u);
  void* q = a.allocate(1010);  // same size class: served from the cache
  EXPECT_EQ(q, p);
  EXPECT_EQ(a.stats().num_cache_hits, 1u);
  EXPECT_EQ(a.stats().num_system_allocs, 1u);
  void* big = a.allocate(3 << 20);
  EXPECT_EQ(a.stats().peak_allocated_bytes, 1024u + CachingAllocator::round_size(3 << 20));
  a.deallocate(big, 3 << 20);
  a.deallocate(q, 1010);
  a.release_cached();
  EXPECT_EQ(a.stats().reserved_bytes, 0u);
  EXPECT_EQ(CachingAllocator::round_size(1), 256u);
  EXPECT_EQ(CachingAllocator::round_size((1 << 20) + 1), (1u << 20) + (1u << 18));
}

TEST(Arena, SlotsShareOneAlignedBlock) {
  Arena arena({{3, 5}, {7}, {2, 2}}, DType::kF32, Device::cpu());
  ASSERT_EQ(arena.size(), 3);
  for (int i = 0; i < arena.size(); ++i) {
    EXPECT_TRUE(arena[i].shares_storage_with(arena.flat()));
    EXPECT_EQ(arena[i].byte_offset() % Arena::kAlign, 0u);
  }
  arena[1].data<float>()[6] = 3.0f;
  const auto flat = arena.flat().to_vector<float>();
  EXPECT_EQ(flat[arena[1].byte_offset() / 4 + 6], 3.0f);
  EXPECT_EQ(arena[2].at(3), 0.0);
}

TEST(Runtime, CpuAlwaysThereCudaCountedWithoutThrowing) {
  EXPECT_EQ(device_count(DeviceType::kCpu), 1);
  EXPECT_GE(device_count(DeviceType::kCuda), 0);
  EXPECT_EQ(parse_device("cuda:3"), Device::cuda(3));
  EXPECT_EQ(parse_device("gpu:1"), Device::cuda(1));
  EXPECT_EQ(parse_device("2"), Device::cuda(2));  // Marian's --devices 2
  EXPECT_THROW(parse_device("2x"), Error);
  EXPECT_THROW(parse_device("cuda:-1"), Error);
  EXPECT_THROW(parse_device("cuda:"), Error);
  EXPECT_THROW(parse_device("tpu"), Error);
  EXPECT_THROW(parse_device("cuda:x"), Error);
}

}  // namespace
}  // namespace realmt
