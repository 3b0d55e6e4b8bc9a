// GPU training: TF32 GEMMs on request only, f32 training on the GPU against the CPU, and bf16 /
// f16 mixed precision (f32 master weights, dynamic loss scaling) against f32. Each test skips
// when no GPU is visible.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/allocator.h"
#include "cuda_test_util.h"
#include "mixed_train.h"
#include "ops/matmul.h"

namespace realmt::training {
namespace {

using realmt::testing::as_doubles;

const Device kGpu = Device::cuda(0);

double max_rel_diff(const Tensor& got, const Tensor& want) {
  const std::vector<double> g = as_doubles(got), w = as_doubles(want);
  double scale = 0, diff = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    scale = std::max(scale, std::fabs(w[i]));
    diff = std::max(diff, std::fabs(g[i] - w[i]));
  }
  return diff / scale;
}

TEST(CudaMatmulTf32, UsedOnlyWhenAllowedPerCallOrByScope) {
  REALMT_REQUIRE_CUDA();
  const Tensor a = realmt::testing::host_tensor(
      realmt::testing::uniform_values(256 * 1024, -1, 1, 1), {256, 1024}, DType::kF32);
  const Tensor b = realmt::testing::host_tensor(
      realmt::testing::uniform_values(1024 * 192, -1, 1, 2), {1024, 192}, DType::kF32);
  const Tensor want = ops::matmul(a, b);
  const Tensor ga = a.to(kGpu), gb = b.to(kGpu);
  const double exact = max_rel_diff(ops::matmul(ga, gb), want);
  ops::MatmulOptions o;
  o.allow_tf32 = true;
  const Tensor tf32 = ops::matmul(ga, gb, o);
  const double rounded = max_rel_diff(tf32, want);
  std::printf("f32 GEMM vs CPU: exact %.2e, tf32 %.2e (max |diff| / max |C|)\n", exact, rounded);
  EXPECT_LT(exact, 1e-5);
  // TF32 keeps 10 mantissa bits of each input: errors around 2^-11 per product, averaging out
  // over K = 1024 terms, far above f32's and far below 1%.
  EXPECT_GT(rounded, 10 * exact);
  EXPECT_LT(rounded, 1e-2);
  {
    const ops::AllowTf32 scope(true);
    EXPECT_TRUE(ops::tf32_allowed());
    EXPECT_EQ(as_doubles(ops::matmul(ga, gb)), as_doubles(tf32));
  }
  EXPECT_FALSE(ops::tf32_allowed());
  EXPECT_LT(max_rel_diff(ops::matmul(ga, gb), want), 1e-5);
}

models::ModelConfig small_config() {
  models::ModelConfig c;
  c.vocab_size = test::kVocab;
  c.enc_depth = 2;
  c.dec_depth = 2;
  c.dim_emb = 64;
  c.heads = 4;
  c.dim_ffn = 128;
  c.dropout = 0.0;
  c.admin_init = models::AdminInit::kClosedForm;
  return c;
}

// Trains a fresh seeded model on `device` through MixedPrecision; returns the losses.
std::vector<double> train_on(Device device, MixedPrecisionOptions o, int updates,
                             int* skipped = nullptr) {
  models::Transformer master(small_config());
  master.allocate(device);
  master.init(42);
  MixedPrecision mp(master, o);
  return test::train_mixed(master, mp, updates, 7, skipped);
}

TEST(CudaTraining, F32OnTheGpuFollowsTheCpu) {
  REALMT_REQUIRE_CUDA();
  const std::vector<double> cpu = train_on(Device::cpu(), {}, 40);
  const std::vector<double> gpu = train_on(kGpu, {}, 40);
  ASSERT_EQ(cpu.size(), gpu.size());
  double worst = 0;
  for (size_t i = 0; i < cpu.size(); ++i)
    worst = std::max(worst, std::fabs(gpu[i] - cpu[i]) / cpu[i]);
  std::printf("f32 GPU vs CPU over %zu updates: max relative loss difference %.2e\n", cpu.size(),
              worst);
  // Both are f32 with different summation orders (cuBLAS vs BLIS, tree vs threaded reductions)
  // and exp implementations: ~1e-7 relative per op. On the CPU, f32 training of this kind
  // stays within 4e-7 of the same training in f64 over 200 updates (measured with
  // MixedPrecisionCpu's setup), so 1e-4 leaves a margin of 250 for two f32 roundings.
  EXPECT_LT(worst, 1e-4);
  EXPECT_LT(gpu.back(), gpu.front() - 0.5);
}

TEST(CudaTraining, Bf16ComputeWithF32MasterTracksF32) {
  REALMT_REQUIRE_CUDA();
  const std::vector<double> f32 = train_on(kGpu, {}, 60);
  const std::vector<double> bf16 = train_on(kGpu, {DType::kBF16, false, {}}, 60);
  ASSERT_EQ(f32.size(), bf16.size());
  for (size_t i = 0; i < f32.size(); ++i)
    EXPECT_NEAR(bf16[i], f32[i], 0.05 * f32[i] + 0.02)
        << "update " << i + 1;  // bf16: 8 mantissa bits
  EXPECT_LT(bf16.back(), bf16.front() - 0.5);
}

TEST(CudaTraining, F16WithDynamicLossScalingSkipsOverflowsAndTracksF32) {
  REALMT_REQUIRE_CUDA();
  // 2^20 times gradients of order 1 overflows f16 (max 65504): the first updates must be
  // skipped and the scale halved until it fits.
  MixedPrecisionOptions o{.compute = DType::kF16, .loss_scaling = true};
  o.loss_scale.initial = std::ldexp(1.0, 20);
  int skipped = 0;
  const std::vector<double> f16 = train_on(kGpu, o, 70, &skipped);
  std::printf("f16: %d updates skipped on overflow\n", skipped);
  EXPECT_GE(skipped, 1);
  ASSERT_EQ(f16.size(), static_cast<size_t>(70 - skipped));
  const std::vector<double> f32 = train_on(kGpu, {}, static_cast<int>(f16.size()));
  // The skipped updates drew batches: compare the trend, not update by update.
  EXPECT_LT(f16.back(), f16.front() - 0.5);
  EXPECT_NEAR(f16.back(), f32.back(), 0.1 * f32.back());
}

TEST(CudaTraining, DeviceAllocatorReportsTrainingMemory) {
  REALMT_REQUIRE_CUDA();
  Allocator& mem = allocator_for(kGpu);
  mem.reset_peak();
  train_on(kGpu, {DType::kBF16, false, {}}, 2);
  const AllocatorStats s = mem.stats();
  EXPECT_GT(s.peak_allocated_bytes, 0u);
  EXPECT_GE(s.reserved_bytes, s.allocated_bytes);
  EXPECT_GT(s.num_cache_hits, 0u);  // the second update reuses the first one's blocks
}

}  // namespace
}  // namespace realmt::training
