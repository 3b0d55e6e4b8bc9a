// The CUDA kernels of the foundation ops against the CPU reference (the general op harness
// in tests/ops compares every op; these pin the backend's own cases: broadcasting plans,
// aliasing in add_, f16/bf16 rounding, cuBLAS's column-major mapping).
#include "cuda_test_util.h"
#include "ops/cast.h"
#include "ops/concat.h"
#include "ops/cross_entropy.h"
#include "ops/dropout.h"
#include "ops/elementwise.h"
#include "ops/embedding.h"
#include "ops/index_select.h"
#include "ops/layer_norm.h"
#include "ops/masked_fill.h"
#include "ops/matmul.h"
#include "ops/optimizer.h"
#include "ops/permute.h"
#include "ops/reduce.h"
#include "ops/slice.h"
#include "ops/softmax.h"
#include "ops/topk.h"
#include "ops/unary.h"

namespace realmt {
namespace {

using testing::expect_close;
using testing::host_tensor;
using testing::uniform_values;

const Device kGpu = Device::cuda(0);

TEST(CudaKernels, FoundationSlotsHaveCudaKernels) {
#ifndef REALMT_WITH_CUDA
  GTEST_SKIP() << "built without the CUDA backend";
#else
  using namespace ops;
  EXPECT_TRUE(matmul_kernel.has(DeviceType::kCuda));
  for (auto* slot : {&add_kernel, &sub_kernel, &mul_kernel, &div_kernel})
    EXPECT_TRUE(slot->has(DeviceType::kCuda)) << slot->name();
  for (auto* slot : {&relu_kernel, &gelu_kernel, &swish_kernel, &exp_kernel, &log_kernel,
                     &sqrt_kernel, &scale_kernel})
    EXPECT_TRUE(slot->has(DeviceType::kCuda)) << slot->name();
  for (auto* slot : {&relu_backward_kernel, &gelu_backward_kernel, &swish_backward_kernel})
    EXPECT_TRUE(slot->has(DeviceType::kCuda)) << slot->name();
  for (auto* slot : {&softmax_kernel, &log_softmax_kernel})
    EXPECT_TRUE(slot->has(DeviceType::kCuda)) << slot->name();
  for (auto* slot : {&softmax_backward_kernel, &log_softmax_backward_kernel})
    EXPECT_TRUE(slot->has(DeviceType::kCuda)) << slot->name();
  for (auto* slot : {&sum_kernel, &max_kernel})
    EXPECT_TRUE(slot->has(DeviceType::kCuda)) << slot->name();
  EXPECT_TRUE(cross_entropy_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(cross_entropy_backward_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(permute_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(slice_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(slice_backward_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(concat_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(layer_norm_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(layer_norm_backward_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(embedding_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(embedding_backward_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(dropout_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(cast_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(masked_fill_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(topk_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(index_select_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(index_select_backward_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(adam_update_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(ema_update_kernel.has(DeviceType::kCuda));
  EXPECT_TRUE(sum_squares_kernel.has(DeviceType::kCuda));
#endif
}

// f32 elementwise arithmetic is IEEE on both sides (nvcc divides exactly by default).
TEST(CudaKernels, ElementwiseBroadcastingMatchesCpuExactly) {
  REALMT_REQUIRE_CUDA();
  const std::vector<std::pair<Shape, Shape>> cases = {{{2, 3, 4}, {2, 3, 4}},
                                                      {{2, 3, 4}, {4}},
                                                      {{2, 3, 4}, {3, 1}},
                                                      {{1}, {2, 3}},
                                                      {{2, 1, 4}, {1, 3, 1}},
                                                      {{5, 1}, {1, 7}},
                                                      {{}, {}},
                                                      {{3, 1, 2, 1}, {1, 4, 1, 5}}};
  for (const auto& [sa, sb] : cases) {
    const Tensor a = Tensor::from_vector(uniform_values(sa.numel(), -2, 2, 1), sa);
    const Tensor b = Tensor::from_vector(uniform_values(sb.numel(), 0.5f, 2, 2), sb);
    const Tensor ga = a.to(kGpu), gb = b.to(kGpu);
    for (auto op : {&ops::add, &ops::sub, &ops::mul, &ops::div}) {
      const Tensor want = op(a, b), got = op(ga, gb);
      EXPECT_EQ(got.device(), kGpu);
      EXPECT_EQ(got.shape(), want.shape());
      EXPECT_EQ(got.to_vector<float>(), want.to_vector<float>()) << sa << " op " << sb;
    }
  }
}

TEST(CudaKernels, AddInPlaceAccumulatesBroadcast) {
  REALMT_REQUIRE_CUDA();
  Tensor a = Tensor::from_vector(uniform_values(24, -1, 1, 3), Shape{2, 3, 4});
  const Tensor b = Tensor::from_vector(uniform_values(4, -1, 1, 4), Shape{4});
  Tensor ga = a.to(kGpu);
  ops::add_(ga, b.to(kGpu));
  ops::add_(a, b);
  EXPECT_EQ(ga.to_vector<float>(), a.to_vector<float>());
}

// f16/bf16: the kernel computes in float and rounds once, so the result equals the host's
// rounding of the f32 result of the rounded inputs.
TEST(CudaKernels, ElementwiseHalfTypesRoundOnce) {
  REALMT_REQUIRE_CUDA();
  for (DType dt : {DType::kF16, DType::kBF16}) {
    const Tensor a = host_tensor(uniform_values(60, -4, 4, 5), {3, 4, 5}, dt);
    const Tensor b = host_tensor(uniform_values(5, 0.5f, 3, 6), {5}, dt);
    const Tensor got = ops::mul(a.to(kGpu), b.to(kGpu));
    EXPECT_EQ(got.dtype(), dt);
    const std::vector<double> va = testing::as_doubles(a), vb = testing::as_doubles(b);
    std::vector<float> want(60);
    for (int i = 0; i < 60; ++i)
      want[i] = static_cast<float>(va[i]) * static_cast<float>(vb[i % 5]);
    EXPECT_EQ(testing::as_doubles(got), testing::as_doubles(host_tensor(want, {3, 4, 5}, dt)))
        << dt;
  }
}

TEST(CudaKernels, UnaryAndBackwardMatchCpu) {
  REALMT_REQUIRE_CUDA();
  for (DType dt : {DType::kF32, DType::kF64}) {
    const double tol = dt == DType::kF32 ? 2e-6 : 1e-14;
    const Tensor x = host_tensor(uniform_values(1000, -6, 6, 8), {10, 100}, dt);
    const Tensor pos = host_tensor(uniform_values(1000, 0.01f, 9, 9), {10, 100}, dt);
    const Tensor dy = host_tensor(uniform_values(1000, -1, 1, 10), {10, 100}, dt);
    const Tensor gx = x.to(kGpu), gpos = pos.to(kGpu), gdy = dy.to(kGpu);
    for (auto op : {&ops::relu, &ops::gelu, &ops::swish, &ops::exp})
      expect_close(op(gx), op(x), tol, tol);
    expect_close(ops::log(gpos), ops::log(pos), tol, tol);
    expect_close(ops::sqrt(gpos), ops::sqrt(pos), tol, tol);
    expect_close(ops::scale(gx, -0.375), ops::scale(x, -0.375), 0, 0);
    for (auto op : {&ops::relu_backward, &ops::gelu_backward, &ops::swish_backward})
      expect_close(op(gdy, gx), op(dy, x), tol, tol);
  }
}

TEST(CudaKernels, UnaryHalfTypes) {
  REALMT_REQUIRE_CUDA();
  for (DType dt : {DType::kF16, DType::kBF16}) {
    const Tensor x = host_tensor(uniform_values(512, -4, 4, 11), {512}, dt);
    const Tensor got = ops::gelu(x.to(kGpu));
    EXPECT_EQ(got.dtype(), dt);
    // The reference: f32 GELU of the rounded inputs; one rounding of the output.
    std::vector<float> xr(512);
    const std::vector<double> xd = testing::as_doubles(x);
    for (int i = 0; i < 512; ++i) xr[i] = static_cast<float>(xd[i]);
    const Tensor want = ops::gelu(Tensor::from_vector(xr, Shape{512}));
    expect_close(got, want, dt == DType::kF16 ? 1e-3 : 8e-3, 1e-3);
  }
}

struct MatmulCase {
  std::vector<int64_t> a, b;
  bool ta, tb;
};

TEST(CudaKernels, MatmulMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  const std::vector<MatmulCase> cases = {{{3, 5}, {5, 4}, false, false},
                                         {{5, 3}, {5, 4}, true, false},
                                         {{3, 5}, {4, 5}, false, true},
                                         {{5, 3}, {4, 5}, true, true},
                                         {{2, 3, 7, 5}, {2, 3, 5, 6}, false, false},
                                         {{2, 7, 5}, {6, 5}, false, true},   // shared B
                                         {{7, 5}, {3, 5, 6}, false, false},  // shared A
                                         {{4, 33, 65}, {4, 33, 17}, true, false},
                                         {{1, 1}, {1, 1}, false, false}};
  for (DType dt : {DType::kF32, DType::kF64}) {
    for (const auto& c : cases) {
      const Shape sa(c.a), sb(c.b);
      const Tensor a = host_tensor(uniform_values(sa.numel(), -1, 1, 12), sa, dt);
      const Tensor b = host_tensor(uniform_values(sb.numel(), -1, 1, 13), sb, dt);
      const ops::MatmulOptions o{.trans_a = c.ta, .trans_b = c.tb, .alpha = 0.5f};
      const Tensor want = ops::matmul(a, b, o);
      const Tensor got = ops::matmul(a.to(kGpu), b.to(kGpu), o);
      ASSERT_EQ(got.shape(), want.shape()) << sa << " @ " << sb;
      const double tol = dt == DType::kF32 ? 1e-5 : 1e-13;
      expect_close(got, want, tol, tol);
    }
  }
}

TEST(CudaKernels, MatmulIntoAccumulatesWithBeta) {
  REALMT_REQUIRE_CUDA();
  const Tensor a = Tensor::from_vector(uniform_values(12, -1, 1, 14), Shape{3, 4});
  const Tensor b = Tensor::from_vector(uniform_values(20, -1, 1, 15), Shape{4, 5});
  Tensor c = Tensor::from_vector(uniform_values(15, -1, 1, 16), Shape{3, 5});
  Tensor gc = c.to(kGpu);
  ops::matmul_into(a.to(kGpu), b.to(kGpu), gc, {}, 0.25f);
  ops::matmul_into(a, b, c, {}, 0.25f);
  expect_close(gc, c, 1e-6, 1e-6);
}

// f16/bf16 GEMMs accumulate in f32: the result is the f32 product of the rounded inputs,
// rounded once (up to summation order).
TEST(CudaKernels, MatmulHalfTypesAccumulateInF32) {
  REALMT_REQUIRE_CUDA();
  for (DType dt : {DType::kF16, DType::kBF16}) {
    const Shape sa{2, 16, 256}, sb{2, 256, 24};
    const Tensor a = host_tensor(uniform_values(sa.numel(), -1, 1, 17), sa, dt);
    const Tensor b = host_tensor(uniform_values(sb.numel(), -1, 1, 18), sb, dt);
    const Tensor got = ops::matmul(a.to(kGpu), b.to(kGpu));
    EXPECT_EQ(got.dtype(), dt);
    auto to_f32 = [](const Tensor& t) {
      const std::vector<double> d = testing::as_doubles(t);
      return Tensor::from_vector(std::vector<float>(d.begin(), d.end()), t.shape());
    };
    const Tensor want = ops::matmul(to_f32(a), to_f32(b));
    // One rounding of values of magnitude up to ~16: half an ulp of the output type.
    expect_close(got, want, dt == DType::kF16 ? 1e-3 : 8e-3, 1e-2);
  }
}

// A mask row of -inf, NaN-free: the warp path (short rows) and the block path (long rows).
TEST(CudaKernels, SoftmaxWithMaskMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  for (int64_t n : {int64_t(1), int64_t(7), int64_t(1024), int64_t(1025), int64_t(9000)}) {
    const Shape sx{2, 3, 4, n}, sm{2, 1, 4, n};
    const Tensor x = Tensor::from_vector(uniform_values(sx.numel(), -8, 8, 20), sx);
    std::vector<float> m(sm.numel(), 0.0f);
    for (int64_t j = 0; j < n; ++j) m[j] = -INFINITY;          // row 0 fully masked
    for (int64_t j = n / 2; j < n; ++j) m[n + j] = -INFINITY;  // row 1 half masked
    const Tensor mask = Tensor::from_vector(m, sm);
    const Tensor gx = x.to(kGpu), gm = mask.to(kGpu);
    const Tensor y = ops::softmax(x, mask), gy = ops::softmax(gx, gm);
    const Tensor ly = ops::log_softmax(x, mask), gly = ops::log_softmax(gx, gm);
    expect_close(gy, y, 1e-5, 1e-7);
    expect_close(gly, ly, 1e-5, 1e-5);
    // Masked entries: exactly zero probability and -inf log-probability.
    const std::vector<float> p = gy.to_vector<float>(), lp = gly.to_vector<float>();
    for (int64_t j = 0; j < n; ++j) {
      EXPECT_EQ(p[j], 0.0f);
      EXPECT_EQ(lp[j], -INFINITY);
    }
    const Tensor dy = Tensor::from_vector(uniform_values(sx.numel(), -1, 1, 21), sx);
    expect_close(ops::softmax_backward(dy.to(kGpu), gy), ops::softmax_backward(dy, y), 1e-5, 1e-6);
    expect_close(ops::log_softmax_backward(dy.to(kGpu), gly), ops::log_softmax_backward(dy, ly),
                 1e-4, 1e-5);
  }
}

TEST(CudaKernels, SoftmaxHalfTypes) {
  REALMT_REQUIRE_CUDA();
  for (DType dt : {DType::kF16, DType::kBF16}) {
    const Tensor x = host_tensor(uniform_values(4 * 300, -4, 4, 22), {4, 300}, dt);
    const std::vector<double> xd = testing::as_doubles(x);
    const Tensor want =
        ops::softmax(Tensor::from_vector(std::vector<float>(xd.begin(), xd.end()), Shape{4, 300}));
    const Tensor got = ops::softmax(x.to(kGpu));
    EXPECT_EQ(got.dtype(), dt);
    expect_close(got, want, dt == DType::kF16 ? 1e-3 : 8e-3, 1e-6);
  }
}

TEST(CudaKernels, ReductionsMatchCpu) {
  REALMT_REQUIRE_CUDA();
  const Shape s{3, 70, 5, 1100};
  const Tensor x = Tensor::from_vector(uniform_values(s.numel(), -1, 1, 23), s);
  const Tensor gx = x.to(kGpu);
  for (int axis = 0; axis < 4; ++axis) {
    expect_close(ops::sum(gx, axis), ops::sum(x, axis), 1e-4, 1e-4);
    expect_close(ops::mean(gx, axis, {true}), ops::mean(x, axis, {true}), 1e-4, 1e-6);
    const auto [v, i] = ops::max_with_indices(x, axis);
    const auto [gv, gi] = ops::max_with_indices(gx, axis);
    EXPECT_EQ(gv.to_vector<float>(), v.to_vector<float>()) << "axis " << axis;
    EXPECT_EQ(gi.to_vector<int32_t>(), i.to_vector<int32_t>()) << "axis " << axis;
  }
  expect_close(ops::sum_all(gx), ops::sum_all(x), 1e-4, 1e-3);
}

// Ties go to the first maximum; a NaN first element wins, a later NaN never does.
TEST(CudaKernels, MaxTiesAndNaNFollowTheCpuScan) {
  REALMT_REQUIRE_CUDA();
  const float nan = NAN;
  for (int64_t n : {int64_t(5), int64_t(40), int64_t(2000)}) {
    std::vector<float> v(4 * n, 0.0f);
    v[0 * n + n - 1] = 3;
    v[0 * n + 1] = 3;  // tie: index 1
    v[1 * n + 0] = nan;
    v[1 * n + 2] = 9;  // NaN first: NaN, index 0
    v[2 * n + 1] = nan;
    v[2 * n + n - 1] = 2;                                      // later NaN ignored: index n-1
    for (int64_t j = 0; j < n; ++j) v[3 * n + j] = -1.0f - j;  // max at index 0
    // Rows (a contiguous axis) and the same data transposed (a strided axis).
    std::vector<float> vt(4 * n);
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t j = 0; j < n; ++j) vt[j * 4 + r] = v[r * n + j];
    const std::pair<Tensor, int> layouts[] = {{Tensor::from_vector(v, Shape{4, n}), 1},
                                              {Tensor::from_vector(vt, Shape{n, 4}), 0}};
    for (const auto& [t, axis] : layouts) {
      const auto [want_v, want_i] = ops::max_with_indices(t, axis);
      const auto [got_v, got_i] = ops::max_with_indices(t.to(kGpu), axis);
      EXPECT_EQ(got_i.to_vector<int32_t>(), want_i.to_vector<int32_t>()) << n;
      expect_close(got_v, want_v, 0, 0);
    }
  }
}

}  // namespace
}  // namespace realmt
