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
      const ops::MatmulOptions o{c.ta, c.tb, 0.5f};
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

TEST(CudaKernels, CrossEntropyMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  for (int64_t v : {int64_t(50), int64_t(5000)}) {
    for (double eps : {0.0, 0.1}) {
      const int64_t rows = 37;
      const Tensor logits =
          Tensor::from_vector(uniform_values(rows * v, -10, 10, 24), Shape{rows, v});
      std::vector<int32_t> t(rows);
      for (int64_t r = 0; r < rows; ++r) t[r] = static_cast<int32_t>((r * 7919) % v);
      t[3] = t[10] = 0;  // the pad id: ignored rows
      const Tensor targets = Tensor::from_vector(t, Shape{rows});
      const ops::CrossEntropyOptions o{eps, 0};
      const auto want = ops::cross_entropy(logits, targets, o);
      const Tensor gl = logits.to(kGpu), gt = targets.to(kGpu);
      const auto got = ops::cross_entropy(gl, gt, o);
      expect_close(got.loss, want.loss, 1e-5, 1e-5);
      expect_close(got.lse, want.lse, 1e-6, 1e-5);
      EXPECT_EQ(got.loss.at(3), 0.0);
      const Tensor dloss = Tensor::from_vector(uniform_values(rows, 0.5f, 1.5f, 25), Shape{rows});
      const Tensor dx = ops::cross_entropy_backward(dloss.to(kGpu), gl, gt, got.lse, o);
      expect_close(dx, ops::cross_entropy_backward(dloss, logits, targets, want.lse, o), 1e-5,
                   1e-7);
      const std::vector<float> d = dx.to_vector<float>();
      for (int64_t j = 0; j < v; ++j) EXPECT_EQ(d[3 * v + j], 0.0f);  // ignored row: exactly 0
    }
  }
}

// Every element size, the row-copy case and the tiled-transpose case with ragged tiles.
TEST(CudaKernels, PermuteMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  const std::vector<std::pair<Shape, std::vector<int>>> cases = {{{2, 5, 3, 4}, {0, 2, 1, 3}},
                                                                 {{33, 65}, {1, 0}},
                                                                 {{3, 40, 70}, {0, 2, 1}},
                                                                 {{2, 3, 4, 5}, {3, 2, 1, 0}},
                                                                 {{1, 7, 1, 9}, {3, 1, 0, 2}},
                                                                 {{6}, {0}},
                                                                 {{}, {}}};
  for (DType dt : {DType::kU8, DType::kF16, DType::kF32, DType::kF64}) {
    for (const auto& [shape, perm] : cases) {
      const Tensor x = host_tensor(uniform_values(shape.numel(), 0, 100, 26), shape, dt);
      const Tensor want = ops::permute(x, perm), got = ops::permute(x.to(kGpu), perm);
      EXPECT_EQ(got.shape(), want.shape());
      EXPECT_EQ(testing::as_doubles(got), testing::as_doubles(want)) << dt << " " << shape;
    }
  }
}

TEST(CudaKernels, SliceConcatMatchCpuExactly) {
  REALMT_REQUIRE_CUDA();
  for (DType dt : {DType::kU8, DType::kBF16, DType::kF32, DType::kF64}) {
    const Shape s{3, 7, 5};
    const Tensor x = host_tensor(uniform_values(s.numel(), 0, 100, 27), s, dt);
    const Tensor gx = x.to(kGpu);
    for (int axis : {0, 1, 2, -1}) {
      const int64_t n = s[axis];
      for (auto [b, e] : {std::pair<int64_t, int64_t>{0, n}, {1, n - 1}, {2, 2}, {n - 1, n}}) {
        const Tensor want = ops::slice(x, axis, b, e), got = ops::slice(gx, axis, b, e);
        EXPECT_EQ(got.shape(), want.shape());
        EXPECT_EQ(testing::as_doubles(got), testing::as_doubles(want)) << dt << " axis " << axis;
        const Tensor back = ops::slice_backward(got, s, axis, b);
        EXPECT_EQ(testing::as_doubles(back),
                  testing::as_doubles(ops::slice_backward(want, s, axis, b)));
        // Slicing the whole tensor apart and concatenating the pieces gives it back.
        const Tensor joined =
            ops::concat({ops::slice(gx, axis, 0, b), got, ops::slice(gx, axis, e, n)}, axis);
        EXPECT_EQ(testing::as_doubles(joined), testing::as_doubles(x)) << dt << " axis " << axis;
      }
    }
  }
}

TEST(CudaKernels, LayerNormMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  for (int64_t d : {int64_t(8), int64_t(512), int64_t(1500)}) {
    for (float offset : {0.0f, 1000.0f}) {  // |mean| >> std too
      const Shape s{3, 45, d};
      std::vector<float> xv = uniform_values(s.numel(), -1, 1, 28);
      for (float& v : xv) v += offset;
      const Tensor x = Tensor::from_vector(xv, s);
      const Tensor gamma = Tensor::from_vector(uniform_values(d, 0.5f, 1.5f, 29), Shape{d});
      const Tensor beta = Tensor::from_vector(uniform_values(d, -0.5f, 0.5f, 30), Shape{d});
      const Tensor dy = Tensor::from_vector(uniform_values(s.numel(), -1, 1, 31), s);
      const auto want = ops::layer_norm(x, gamma, beta, 1e-5);
      const auto got = ops::layer_norm(x.to(kGpu), gamma.to(kGpu), beta.to(kGpu), 1e-5);
      expect_close(got.y, want.y, 1e-5, 2e-5);
      expect_close(got.mean, want.mean, 1e-6, 1e-6);
      expect_close(got.rstd, want.rstd, 1e-5, 1e-6);
      const auto gw = ops::layer_norm_backward(dy, x, gamma, want.mean, want.rstd);
      const auto gg =
          ops::layer_norm_backward(dy.to(kGpu), x.to(kGpu), gamma.to(kGpu), got.mean, got.rstd);
      expect_close(gg.dx, gw.dx, 1e-4, 1e-4);
      expect_close(gg.dgamma, gw.dgamma, 1e-4, 1e-4);
      expect_close(gg.dbeta, gw.dbeta, 1e-5, 1e-5);
      // Deterministic: a second run gives the same bits.
      const auto again =
          ops::layer_norm_backward(dy.to(kGpu), x.to(kGpu), gamma.to(kGpu), got.mean, got.rstd);
      EXPECT_EQ(again.dgamma.to_vector<float>(), gg.dgamma.to_vector<float>());
    }
  }
}

// The backward pass sums repeated ids in position order, as the CPU: the same bits.
TEST(CudaKernels, EmbeddingMatchesCpuBitForBit) {
  REALMT_REQUIRE_CUDA();
  const int64_t vocab = 300, d = 37;
  std::vector<int32_t> idv(4 * 50);
  for (size_t i = 0; i < idv.size(); ++i) idv[i] = static_cast<int32_t>((i * i * 31 + 7) % 41);
  idv[5] = idv[77] = idv[150] = vocab - 1;
  const Tensor ids = Tensor::from_vector(idv, Shape{4, 50});
  for (DType dt : {DType::kF32, DType::kF64, DType::kBF16}) {
    const Tensor w = host_tensor(uniform_values(vocab * d, -1, 1, 32), {vocab, d}, dt);
    const Tensor y = ops::embedding(w.to(kGpu), ids.to(kGpu));
    EXPECT_EQ(y.shape(), (Shape{4, 50, d}));
    EXPECT_EQ(testing::as_doubles(y), testing::as_doubles(ops::embedding(w, ids))) << dt;
  }
  for (DType dt : {DType::kF32, DType::kF64}) {
    const Tensor dy = host_tensor(uniform_values(4 * 50 * d, -1, 1, 33), {4, 50, d}, dt);
    const Tensor want = ops::embedding_backward(dy, ids, vocab);
    const Tensor got = ops::embedding_backward(dy.to(kGpu), ids.to(kGpu), vocab);
    EXPECT_EQ(testing::as_doubles(got), testing::as_doubles(want)) << dt;
  }
}

// The same (seed, offset) gives the same mask and values on both devices, also for offsets
// and sizes that are not multiples of 4 (partial Philox blocks).
TEST(CudaKernels, DropoutMaskEqualsCpu) {
  REALMT_REQUIRE_CUDA();
  for (DType dt : {DType::kF32, DType::kF64}) {
    for (uint64_t offset : {uint64_t(0), uint64_t(3), uint64_t(1) << 33}) {
      for (int64_t n : {int64_t(1), int64_t(7), int64_t(100003)}) {
        const Tensor x = host_tensor(uniform_values(n, -2, 2, 34), {n}, dt);
        const ops::DropoutOptions o{0.3, 987654321, offset};
        const Tensor want = ops::dropout(x, o), got = ops::dropout(x.to(kGpu), o);
        EXPECT_EQ(testing::as_doubles(got), testing::as_doubles(want)) << dt << " " << offset;
        EXPECT_EQ(testing::as_doubles(ops::dropout_backward(x.to(kGpu), o)),
                  testing::as_doubles(ops::dropout_backward(x, o)));
      }
    }
  }
  // f16: same mask (zeros where the CPU's f32 result has zeros).
  const Tensor x32 = Tensor::from_vector(uniform_values(1000, 0.5f, 2, 35), Shape{1000});
  const ops::DropoutOptions o{0.5, 42, 5};
  const std::vector<double> want = testing::as_doubles(ops::dropout(x32, o));
  const std::vector<double> got = testing::as_doubles(ops::dropout(
      host_tensor(uniform_values(1000, 0.5f, 2, 35), {1000}, DType::kF16).to(kGpu), o));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(got[i] == 0.0, want[i] == 0.0) << i;
}

// Every (from, to) pair, with values that exercise rounding, overflow, NaN and saturation.
TEST(CudaKernels, CastMatchesCpuForEveryPair) {
  REALMT_REQUIRE_CUDA();
  const std::vector<double> values = {0.0,  -0.0,     1.5,       -2.5,         255.5,   256.0,
                                      -1.0, 65519.0,  65520.0,   1e10,         -1e10,   3.0e38,
                                      1e-8, 6e-8,     1.0000001, 2147483647.0, 1.0 / 3, 0.1,
                                      NAN,  INFINITY, -INFINITY, 16777217.0};
  const int64_t n = static_cast<int64_t>(values.size());
  const Tensor x64 = Tensor::from_vector(values, Shape{n});
  const DType all[] = {DType::kF32,  DType::kF64, DType::kF16,
                       DType::kBF16, DType::kI32, DType::kU8};
  for (DType from : all) {
    const Tensor x = from == DType::kF64 ? x64 : ops::cast(x64, from);
    const Tensor gx = x.to(kGpu);
    for (DType to : all) {
      if (to == from) continue;
      const Tensor want = ops::cast(x, to), got = ops::cast(gx, to);
      EXPECT_EQ(got.dtype(), to);
      const std::vector<double> w = testing::as_doubles(want), g = testing::as_doubles(got);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_TRUE(g[i] == w[i] || (std::isnan(g[i]) && std::isnan(w[i])))
            << from << " -> " << to << " of " << values[i] << ": got " << g[i] << ", want " << w[i];
    }
  }
}

TEST(CudaKernels, MaskedFillMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  const Shape sx{2, 3, 4, 5};
  for (const Shape& sm : {Shape{2, 1, 1, 5}, Shape{2, 3, 4, 5}, Shape{4, 1}, Shape{1}}) {
    std::vector<uint8_t> m(sm.numel());
    for (size_t i = 0; i < m.size(); ++i) m[i] = (i * 7 + 3) % 3 == 0;
    const Tensor mask = Tensor::from_vector(m, sm);
    for (DType dt : {DType::kF32, DType::kF16, DType::kF64, DType::kI32, DType::kU8}) {
      const Tensor x = host_tensor(uniform_values(sx.numel(), 0, 50, 36), sx, dt);
      const double value = is_floating(dt) ? -INFINITY : 7.0;
      const Tensor want = ops::masked_fill(x, mask, value);
      const Tensor got = ops::masked_fill(x.to(kGpu), mask.to(kGpu), value);
      EXPECT_EQ(testing::as_doubles(got), testing::as_doubles(want)) << dt << " mask " << sm;
    }
  }
}

// Ties (lower position first), NaN ranked as -inf but returned as NaN, k from 1 to n.
TEST(CudaKernels, TopkAndArgmaxMatchCpu) {
  REALMT_REQUIRE_CUDA();
  for (int64_t n : {int64_t(1), int64_t(9), int64_t(700), int64_t(40000)}) {
    std::vector<float> v = uniform_values(5 * n, -3, 3, 37);
    for (int64_t r = 0; r < 5; ++r) {
      v[r * n + (n - 1)] = 2.5f;
      v[r * n + n / 2] = 2.5f;  // a tie (the same entry when n is 1 or 2)
      if (r == 2) v[r * n] = NAN;
      if (r == 3)
        for (int64_t j = 0; j < n; ++j) v[r * n + j] = 1.0f;  // all equal
    }
    for (DType dt : {DType::kF32, DType::kF64, DType::kBF16}) {
      const Tensor x = host_tensor(v, {5, n}, dt);
      const Tensor gx = x.to(kGpu);
      EXPECT_EQ(ops::argmax(gx).to_vector<int32_t>(), ops::argmax(x).to_vector<int32_t>());
      for (int64_t k : {int64_t(1), std::min<int64_t>(n, 8), n <= 700 ? n : int64_t(20)}) {
        const auto [wv, wi] = ops::topk(x, k);
        const auto [gv, gi] = ops::topk(gx, k);
        EXPECT_EQ(gi.to_vector<int32_t>(), wi.to_vector<int32_t>())
            << dt << " n " << n << " k " << k;
        expect_close(gv, wv, 0, 0);
      }
    }
  }
}

TEST(CudaKernels, IndexSelectMatchesCpuBitForBit) {
  REALMT_REQUIRE_CUDA();
  const Shape s{3, 6, 50};
  // Repeated indices in any order, within each axis's extent (3, 6, 50).
  const std::vector<std::vector<int32_t>> per_axis = {
      {2, 0, 2, 1, 2}, {5, 0, 5, 2, 5, 1, 0}, {49, 0, 49, 3}};
  for (int axis : {0, 1, 2}) {
    const auto& iv = per_axis[axis];
    const Tensor ix = Tensor::from_vector(iv, Shape{static_cast<int64_t>(iv.size())});
    for (DType dt : {DType::kF32, DType::kF64, DType::kU8}) {
      const Tensor x = host_tensor(uniform_values(s.numel(), 0, 9, 38), s, dt);
      const Tensor want = ops::index_select(x, axis, ix);
      const Tensor got = ops::index_select(x.to(kGpu), axis, ix.to(kGpu));
      EXPECT_EQ(testing::as_doubles(got), testing::as_doubles(want)) << dt << " axis " << axis;
      if (!is_floating(dt)) continue;
      const Tensor dy = host_tensor(uniform_values(want.numel(), -1, 1, 39), want.shape(), dt);
      EXPECT_EQ(testing::as_doubles(ops::index_select_backward(dy.to(kGpu), s, axis, ix.to(kGpu))),
                testing::as_doubles(ops::index_select_backward(dy, s, axis, ix)))
          << dt << " axis " << axis;
    }
  }
}

TEST(CudaKernels, OptimizerKernelsMatchCpu) {
  REALMT_REQUIRE_CUDA();
  const int64_t n = 200001;  // several sum_squares chunks and a partial one
  for (bool denom : {true, false}) {
    Tensor p = Tensor::from_vector(uniform_values(n, -1, 1, 40), Shape{n});
    const Tensor g = Tensor::from_vector(uniform_values(n, -1, 1, 41), Shape{n});
    Tensor m = Tensor::from_vector(uniform_values(n, -0.1f, 0.1f, 42), Shape{n});
    Tensor v = Tensor::from_vector(uniform_values(n, 0, 0.01f, 43), Shape{n});
    Tensor gp = p.to(kGpu), gm = m.to(kGpu), gv = v.to(kGpu);
    ops::AdamStep s;
    s.grad_scale = 0.5;
    s.step_size = 1e-3;
    s.bias_correction2 = 0.02;
    s.use_denominator = denom;
    ops::adam_update(gp, g.to(kGpu), gm, gv, s);
    ops::adam_update(p, g, m, v, s);
    expect_close(gp, p, 1e-6, 1e-7);
    expect_close(gm, m, 1e-6, 1e-9);
    expect_close(gv, v, 1e-6, 1e-12);
    Tensor e = Tensor::from_vector(uniform_values(n, -1, 1, 44), Shape{n});
    Tensor ge = e.to(kGpu);
    ops::ema_update(ge, gp, 1e-4);
    ops::ema_update(e, p, 1e-4);
    expect_close(ge, e, 1e-6, 1e-9);
  }
  const Tensor x = Tensor::from_vector(uniform_values(n, -1, 1, 45), Shape{n});
  const double want = ops::sum_squares(x), got = ops::sum_squares(x.to(kGpu));
  EXPECT_NEAR(got, want, 1e-12 * want);
  EXPECT_EQ(ops::sum_squares(x.to(kGpu)), got);  // deterministic
}

}  // namespace
}  // namespace realmt
