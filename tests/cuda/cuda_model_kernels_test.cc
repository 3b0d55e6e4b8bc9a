// The CUDA kernels of the model and data ops against the CPU reference: bit-exact where the
// CUDA kernel keeps the CPU's order (gathers, deterministic scatter-adds, dropout masks,
// casts), within tolerances elsewhere. The op harness in tests/ops covers every op too.
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
      const ops::CrossEntropyOptions o{.label_smoothing = eps, .ignore_index = 0};
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
        const ops::DropoutOptions o{.p = 0.3, .seed = 987654321, .offset = offset};
        const Tensor want = ops::dropout(x, o), got = ops::dropout(x.to(kGpu), o);
        EXPECT_EQ(testing::as_doubles(got), testing::as_doubles(want)) << dt << " " << offset;
        EXPECT_EQ(testing::as_doubles(ops::dropout_backward(x.to(kGpu), o)),
                  testing::as_doubles(ops::dropout_backward(x, o)));
      }
    }
  }
  // f16: same mask (zeros where the CPU's f32 result has zeros).
  const Tensor x32 = Tensor::from_vector(uniform_values(1000, 0.5f, 2, 35), Shape{1000});
  const ops::DropoutOptions o{.p = 0.5, .seed = 42, .offset = 5};
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
