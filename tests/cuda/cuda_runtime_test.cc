// The CUDA runtime through the public core API: device count without a GPU, clear errors for
// missing devices, allocator statistics and copies between the CPU and CUDA devices.
#include <filesystem>
#include <numeric>

#include "core/allocator.h"
#include "cuda_test_util.h"

namespace realmt {
namespace {

using testing::uniform_values;

TEST(CudaRuntime, DeviceCountNeverThrows) {
  int n = -1;
  EXPECT_NO_THROW(n = device_count(DeviceType::kCuda));
  EXPECT_GE(n, 0);
#ifdef REALMT_WITH_CUDA
  EXPECT_TRUE(runtime_available(DeviceType::kCuda));
  EXPECT_EQ(runtime_for(DeviceType::kCuda).device_count(), n);
#else
  EXPECT_EQ(n, 0);
#endif
  // No NVIDIA driver on this machine: there can be no device.
  if (!std::filesystem::exists("/dev/nvidiactl")) {
    EXPECT_EQ(n, 0);
  }
}

TEST(CudaRuntime, MissingDeviceIsAClearError) {
  const int n = device_count(DeviceType::kCuda);
  try {
    Tensor t = Tensor::empty({4}, DType::kF32, Device::cuda(n));
    FAIL() << "allocating on cuda:" << n << " should throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
  }
}

TEST(CudaRuntime, AllocatorStatsAndCacheReuse) {
  REALMT_REQUIRE_CUDA();
  Allocator& alloc = allocator_for(Device::cuda(0));
  alloc.release_cached();
  const AllocatorStats s0 = alloc.stats();
  const size_t block = CachingAllocator::round_size(1000 * sizeof(float));
  {
    Tensor t = Tensor::empty({1000}, DType::kF32, Device::cuda(0));
    const AllocatorStats s1 = alloc.stats();
    EXPECT_EQ(s1.num_allocs, s0.num_allocs + 1);
    EXPECT_EQ(s1.allocated_bytes, s0.allocated_bytes + block);
    EXPECT_GE(s1.peak_allocated_bytes, s1.allocated_bytes);
    EXPECT_EQ(s1.num_system_allocs, s0.num_system_allocs + 1);
  }
  const AllocatorStats s2 = alloc.stats();
  EXPECT_EQ(s2.allocated_bytes, s0.allocated_bytes);
  EXPECT_EQ(s2.cached_bytes, s0.cached_bytes + block);
  {
    Tensor t = Tensor::empty({1000}, DType::kF32, Device::cuda(0));  // same size class
    const AllocatorStats s3 = alloc.stats();
    EXPECT_EQ(s3.num_cache_hits, s2.num_cache_hits + 1);
    EXPECT_EQ(s3.num_system_allocs, s2.num_system_allocs);
  }
  alloc.release_cached();
  const AllocatorStats s4 = alloc.stats();
  EXPECT_EQ(s4.cached_bytes, 0u);
  EXPECT_EQ(s4.reserved_bytes, s4.allocated_bytes);
  // The CPU allocator is a different one.
  EXPECT_NE(&allocator_for(Device::cpu()), &alloc);
}

TEST(CudaRuntime, OutOfMemoryIsAnErrorAndTheAllocatorStaysUsable) {
  REALMT_REQUIRE_CUDA();
  EXPECT_THROW(Tensor::empty({int64_t(1) << 50}, DType::kU8, Device::cuda(0)), Error);
  Tensor t = Tensor::full({8}, 3.0, DType::kF32, Device::cuda(0));
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>(8, 3.0f));
}

TEST(CudaRuntime, HostDeviceRoundTrips) {
  REALMT_REQUIRE_CUDA();
  // Sizes around the allocator's classes and a DMA-unfriendly odd size.
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(255), int64_t(257), int64_t(1) << 20,
                    (int64_t(1) << 20) + 3}) {
    std::vector<uint8_t> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 131 + 7);
    const Tensor h = Tensor::from_vector(v, Shape{n});
    const Tensor d = h.to(Device::cuda(0));
    EXPECT_EQ(d.device(), Device::cuda(0));
    EXPECT_EQ(d.to_vector<uint8_t>(), v) << n << " bytes";
  }
}

TEST(CudaRuntime, DeviceToDeviceCopiesViewsAndZero) {
  REALMT_REQUIRE_CUDA();
  const std::vector<float> v = uniform_values(6 * 5, -1, 1);
  const Tensor d = Tensor::from_vector(v, Shape{6, 5}).to(Device::cuda(0));
  const Tensor c = d.clone();  // device -> device
  EXPECT_FALSE(c.shares_storage_with(d));
  EXPECT_EQ(c.to_vector<float>(), v);

  // Copy rows 2..4 of d into rows 0..2 of a zeroed tensor, through narrow0 views.
  Tensor z = Tensor::zeros({6, 5}, DType::kF32, Device::cuda(0));
  Tensor dst = z.narrow0(0, 2);
  dst.copy_from(d.narrow0(2, 4));
  const std::vector<float> got = z.to_vector<float>();
  for (int i = 0; i < 30; ++i) EXPECT_EQ(got[i], i < 10 ? v[10 + i] : 0.0f) << i;
  EXPECT_EQ(z.at(3), static_cast<double>(v[13]));
  EXPECT_EQ(z.narrow0(5, 6).reshape(Shape{5}).narrow0(4, 5).item(), 0.0);

  // A CPU tensor copied into an existing device tensor, then zeroed in place.
  Tensor w = Tensor::empty({6, 5}, DType::kF32, Device::cuda(0));
  w.copy_from(Tensor::from_vector(v, Shape{6, 5}));
  EXPECT_EQ(w.to_vector<float>(), v);
  w.zero_();
  EXPECT_EQ(w.to_vector<float>(), std::vector<float>(30, 0.0f));
  runtime_for(DeviceType::kCuda).synchronize(0);
}

TEST(CudaRuntime, HalfPrecisionStorageRoundTrips) {
  REALMT_REQUIRE_CUDA();
  for (DType dt : {DType::kF16, DType::kBF16, DType::kF64, DType::kI32}) {
    const Tensor h = testing::host_tensor(uniform_values(100, -50, 50), {100}, dt);
    EXPECT_EQ(testing::as_doubles(h.to(Device::cuda(0))), testing::as_doubles(h)) << dt;
  }
}

TEST(CudaRuntime, CopiesBetweenTwoDevices) {
  REALMT_REQUIRE_CUDA();
  if (device_count(DeviceType::kCuda) < 2) GTEST_SKIP() << "needs two CUDA devices";
  const std::vector<float> v = uniform_values(1000, -1, 1);
  const Tensor a = Tensor::from_vector(v, Shape{1000}).to(Device::cuda(0));
  const Tensor b = a.to(Device::cuda(1));
  EXPECT_EQ(b.device(), Device::cuda(1));
  EXPECT_EQ(b.to_vector<float>(), v);
  Tensor c = Tensor::zeros({1000}, DType::kF32, Device::cuda(0));
  c.copy_from(b);
  EXPECT_EQ(c.to_vector<float>(), v);
}

}  // namespace
}  // namespace realmt
