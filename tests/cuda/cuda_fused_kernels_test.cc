// The CUDA kernels of the fused training ops (sub-layer epilogue, bias + activation, the loss
// rows of the fused output projection, bias helpers, cache copies) against the CPU kernels at
// sizes the op harness's small cases do not reach (a block per row beyond 1024 features, many
// row chunks in the column sums), in f16/bf16 against f32 on the same rounded inputs, with
// the dropout masks compared exactly and the column sums checked for run-to-run determinism.
#include <cmath>

#include "cuda_test_util.h"
#include "ops/attention.h"
#include "ops/bias.h"
#include "ops/bias_activation.h"
#include "ops/cast.h"
#include "ops/kv_cache.h"
#include "ops/linear_cross_entropy.h"
#include "ops/residual_norm.h"

namespace realmt {
namespace {

using testing::as_doubles;
using testing::expect_close;
using testing::uniform_values;

const Device kGpu = Device::cuda(0);

Tensor values(const Shape& s, float lo, float hi, uint64_t seed) {
  return Tensor::from_vector(uniform_values(s.numel(), lo, hi, seed), s);
}
// t rounded to dt and back to f32 (the CPU's copy of a half-precision input).
Tensor rounded(const Tensor& t, DType dt) { return ops::cast(ops::cast(t, dt), DType::kF32); }
Tensor on_gpu(const Tensor& t, DType dt) { return ops::cast(t, dt).to(kGpu); }
double half_tol(DType dt) {
  return dt == DType::kBF16 ? 1.6e-2 : 2e-3;
}  // a few units in the last place

// Expects |got - want| <= tol (|want| + max |want|).
void expect_scaled(const Tensor& got, const Tensor& want, double tol) {
  double scale = 0;
  for (double v : as_doubles(want)) scale = std::max(scale, std::abs(v));
  expect_close(got, want, tol, tol * scale);
}

TEST(CudaFusedKernels, SlotsHaveCudaKernels) {
#ifndef REALMT_WITH_CUDA
  GTEST_SKIP() << "built without the CUDA backend";
#else
  using namespace ops;
  EXPECT_TRUE(attention_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(attention_backward_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(residual_norm_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(residual_norm_backward_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(bias_activation_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(bias_activation_backward_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(cross_entropy_rows_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(fill_rows_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(column_sums_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(kv_cache_copy_kernel.has(DeviceType::kCuda));
#endif
}

struct NormInputs {
  Tensor x, y, omega, bias, gamma, beta, dn, dz;
};
NormInputs norm_inputs(const Shape& s) {
  const Shape d{s[-1]};
  return {values(s, -2, 2, 51), values(s, -2, 2, 52),      values(d, 0.5f, 2, 53),
          values(d, -1, 1, 54), values(d, 0.5f, 1.5f, 55), values(d, -1, 1, 56),
          values(s, -1, 1, 57), values(s, -1, 1, 58)};
}
struct NormRun {
  ops::ResidualNormResult fwd;
  ops::ResidualNormGrads grads;
};
NormRun run_norm(const NormInputs& in, const ops::ResidualNormOptions& o, DType dt, Device device) {
  auto t = [&](const Tensor& x) { return ops::cast(x, dt).to(device); };
  NormRun r;
  r.fwd = ops::residual_norm(t(in.x), t(in.y), t(in.omega), t(in.bias), t(in.gamma), t(in.beta), o);
  r.grads = ops::residual_norm_backward(t(in.dn), t(in.dz), t(in.x), r.fwd, t(in.omega), t(in.bias),
                                        t(in.gamma), o);
  return r;
}

TEST(CudaFusedKernels, ResidualNormMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  const ops::ResidualNormOptions o{.eps = 1e-5, .dropout = 0.1, .seed = 99, .offset = 7};
  // A warp per row (d 64, 70 rows: three row chunks), a block per row (d 1536, 300 rows).
  for (const Shape& s : {Shape{70, 64}, Shape{3, 100, 1536}}) {
    SCOPED_TRACE(s.str());
    const NormInputs in = norm_inputs(s);
    const NormRun want = run_norm(in, o, DType::kF32, Device::cpu());
    const NormRun got = run_norm(in, o, DType::kF32, kGpu);
    // z differs by O(1) wherever the two dropout masks would differ.
    expect_close(got.fwd.z, want.fwd.z, 1e-6, 1e-6);
    expect_close(got.fwd.n, want.fwd.n, 1e-5, 2e-5);
    expect_close(got.fwd.mean, want.fwd.mean, 1e-5, 1e-6);
    expect_close(got.fwd.rstd, want.fwd.rstd, 1e-5, 1e-6);
    expect_close(got.grads.dx, want.grads.dx, 1e-4, 1e-4);
    expect_close(got.grads.dy, want.grads.dy, 1e-4, 1e-4);
    for (auto [g, w] : {std::pair{got.grads.dgamma, want.grads.dgamma},
                        {got.grads.dbeta, want.grads.dbeta},
                        {got.grads.domega, want.grads.domega},
                        {got.grads.dbias, want.grads.dbias}})
      expect_scaled(g, w, 1e-5);
    // Deterministic column sums: a second run gives the same bits.
    const NormRun again = run_norm(in, o, DType::kF32, kGpu);
    EXPECT_EQ(as_doubles(again.grads.domega), as_doubles(got.grads.domega));
    EXPECT_EQ(as_doubles(again.grads.dgamma), as_doubles(got.grads.dgamma));
  }
  // Without omega and bias (Post-LN without the ADMIN scale).
  const NormInputs in = norm_inputs(Shape{20, 48});
  auto bare = [&](Device device) {
    const auto f = ops::residual_norm(in.x.to(device), in.y.to(device), Tensor(), Tensor(),
                                      in.gamma.to(device), in.beta.to(device), o);
    const auto g = ops::residual_norm_backward(in.dn.to(device), Tensor(), in.x.to(device), f,
                                               Tensor(), Tensor(), in.gamma.to(device), o);
    EXPECT_FALSE(g.domega.defined() || g.dbias.defined());
    return std::vector<Tensor>{f.n, g.dx, g.dy, g.dgamma, g.dbeta};
  };
  const auto want = bare(Device::cpu()), got = bare(kGpu);
  for (size_t i = 0; i < want.size(); ++i) expect_scaled(got[i], want[i], 1e-5);
}

TEST(CudaFusedKernels, ResidualNormHalfTypesTrackF32) {
  REALMT_REQUIRE_CUDA();
  const ops::ResidualNormOptions o{.eps = 1e-5, .dropout = 0.1, .seed = 99, .offset = 7};
  for (const DType dt : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(dt);
    NormInputs in = norm_inputs(Shape{40, 96});
    for (Tensor* t : {&in.x, &in.y, &in.omega, &in.bias, &in.gamma, &in.beta, &in.dn, &in.dz})
      *t = rounded(*t, dt);
    const NormRun want = run_norm(in, o, DType::kF32, Device::cpu());
    const NormRun got = run_norm(in, o, dt, kGpu);
    const double tol = half_tol(dt);
    expect_scaled(got.fwd.z, want.fwd.z, tol);
    expect_scaled(got.fwd.n, want.fwd.n, 2 * tol);  // n is normalised from the rounded z
    expect_scaled(got.grads.dx, want.grads.dx, 2 * tol);
    expect_scaled(got.grads.dgamma, want.grads.dgamma, 2 * tol);
    expect_scaled(got.grads.dbias, want.grads.dbias, 2 * tol);
  }
}

TEST(CudaFusedKernels, BiasActivationMatchesCpuWithTheSameMask) {
  REALMT_REQUIRE_CUDA();
  const Shape s{33, 1100};
  const Tensor y = values(s, -2, 2, 61), bias = values(Shape{1100}, -1, 1, 62),
               dh = values(s, -1, 1, 63);
  for (const ops::Activation a :
       {ops::Activation::kRelu, ops::Activation::kGelu, ops::Activation::kSwish}) {
    SCOPED_TRACE(static_cast<int>(a));
    const ops::BiasActivationOptions o{.activation = a, .dropout = 0.2, .seed = 1234, .offset = 3};
    const Tensor want = ops::bias_activation(y, bias, o);
    const Tensor got = ops::bias_activation(y.to(kGpu), bias.to(kGpu), o);
    expect_close(got, want, 1e-5, 1e-6);
    if (a != ops::Activation::kRelu) {  // gelu and swish are 0 only where dropped
      const std::vector<double> g = as_doubles(got), w = as_doubles(want);
      int differ = 0;
      for (size_t i = 0; i < g.size(); ++i) differ += (g[i] == 0.0) != (w[i] == 0.0);
      EXPECT_EQ(differ, 0);
    }
    const auto gw = ops::bias_activation_backward(dh, want, y, bias, o);
    const auto gg = ops::bias_activation_backward(dh.to(kGpu), got, y.to(kGpu), bias.to(kGpu), o);
    expect_close(gg.dy, gw.dy, 1e-5, 1e-6);
    expect_scaled(gg.dbias, gw.dbias, 1e-5);
  }
  for (const DType dt : {DType::kF16, DType::kBF16}) {
    for (const ops::Activation a : {ops::Activation::kGelu, ops::Activation::kRelu}) {
      SCOPED_TRACE(dt);
      SCOPED_TRACE(static_cast<int>(a));
      const ops::BiasActivationOptions o{.activation = a, .dropout = 0.1, .seed = 5, .offset = 1};
      const Tensor yr = rounded(y, dt), br = rounded(bias, dt), dr = rounded(dh, dt);
      const Tensor want = ops::bias_activation(yr, br, o);
      const Tensor got = ops::bias_activation(on_gpu(yr, dt), on_gpu(br, dt), o);
      expect_scaled(got, want, half_tol(dt));
      const auto gw = ops::bias_activation_backward(dr, want, yr, br, o);
      const auto gg =
          ops::bias_activation_backward(on_gpu(dr, dt), got, on_gpu(yr, dt), on_gpu(br, dt), o);
      expect_scaled(gg.dy, gw.dy, half_tol(dt));
      expect_scaled(gg.dbias, gw.dbias, 2 * half_tol(dt));
    }
  }
}

TEST(CudaFusedKernels, LinearCrossEntropyMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  // 3000 classes: a block per row; 150 rows in chunks of 64; padding rows (target 0).
  const int64_t n = 150, d = 32, v = 3000;
  const Tensor h = values(Shape{n, d}, -1, 1, 71), w = values(Shape{v, d}, -1, 1, 72),
               bias = values(Shape{v}, -0.5f, 0.5f, 73);
  std::vector<int32_t> tv(n);
  for (int64_t i = 0; i < n; ++i)
    tv[i] = i % 11 == 1 ? 0 : static_cast<int32_t>(1 + (i * 977) % (v - 1));
  const Tensor targets = Tensor::from_vector(tv, Shape{n});
  const ops::LinearCrossEntropyOptions o{
      .label_smoothing = 0.1, .with_grad = true, .chunk_rows = 64};
  for (const DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(dt);
    const Tensor hr = rounded(h, dt), wr = rounded(w, dt), br = rounded(bias, dt);
    const auto want = ops::linear_cross_entropy(hr, wr, br, targets, o);
    const auto got = ops::linear_cross_entropy(on_gpu(hr, dt), on_gpu(wr, dt), on_gpu(br, dt),
                                               targets.to(kGpu), o);
    const double tol = dt == DType::kF32 ? 1e-5 : half_tol(dt);
    EXPECT_EQ(got.loss.dtype(), DType::kF32);
    expect_scaled(got.loss, want.loss, tol);
    expect_scaled(got.dh, want.dh, 2 * tol);
    expect_scaled(got.dw, want.dw, 2 * tol);
    expect_scaled(got.dbias, want.dbias, 2 * tol);
  }
}

TEST(CudaFusedKernels, BiasHelpersAndCacheCopiesMatchCpu) {
  REALMT_REQUIRE_CUDA();
  for (const DType dt : {DType::kF32, DType::kF64, DType::kBF16}) {
    SCOPED_TRACE(dt);
    // Column sums over 5000 rows (many row chunks), added onto what is there. The CPU kernels
    // take f32/f64: bf16 is checked against f32 on the same rounded values.
    const DType ref = dt == DType::kBF16 ? DType::kF32 : dt;
    const Tensor x = ops::cast(values(Shape{5000, 40}, -1, 1, 81), dt);
    const Tensor start = ops::cast(values(Shape{40}, -1, 1, 82), dt);
    Tensor want = ops::cast(start, ref), got = start.to(kGpu);
    ops::add_column_sums_(ops::cast(x, ref), want);
    ops::add_column_sums_(x.to(kGpu), got);
    expect_scaled(got, want, dt == DType::kBF16 ? half_tol(dt) : 1e-5);
    Tensor again = start.to(kGpu);
    ops::add_column_sums_(x.to(kGpu), again);
    EXPECT_EQ(as_doubles(again), as_doubles(got));
    Tensor filled = Tensor::zeros({7, 40}, dt, kGpu), filled_cpu = Tensor::zeros({7, 40}, ref);
    ops::fill_rows_(filled, start.to(kGpu));
    ops::fill_rows_(filled_cpu, ops::cast(start, ref));
    EXPECT_EQ(as_doubles(filled), as_doubles(filled_cpu));
    // Cache rows of 3 elements (6-byte rows in bf16: 2-byte words) and of 4 (16-byte words in f32).
    for (const int64_t dh : {int64_t(3), int64_t(4)}) {
      const Tensor cache = ops::cast(values(Shape{2, 3, 6, dh}, -1, 1, 83), dt);
      const Tensor rows = ops::cast(values(Shape{2, 2, 3 * dh + 5}, -1, 1, 84), dt);
      Tensor c_cpu = cache.clone(), c_gpu = cache.to(kGpu);
      ops::kv_cache_write(c_cpu, rows, 5, 3);
      ops::kv_cache_write(c_gpu, rows.to(kGpu), 5, 3);
      EXPECT_EQ(as_doubles(c_gpu), as_doubles(c_cpu));
      const Tensor grown_cpu = ops::kv_cache_resize(c_cpu, 5, 9),
                   grown_gpu = ops::kv_cache_resize(c_gpu, 5, 9);
      const std::vector<double> gc = as_doubles(grown_cpu), gg = as_doubles(grown_gpu);
      for (int64_t nh = 0; nh < 6; ++nh)  // rows [0, 5) of every (n, h) are defined
        for (int64_t e = 0; e < 5 * dh; ++e) EXPECT_EQ(gg[nh * 9 * dh + e], gc[nh * 9 * dh + e]);
    }
  }
}

}  // namespace
}  // namespace realmt
