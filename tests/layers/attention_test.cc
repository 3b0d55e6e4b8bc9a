// Residual attention (RealFormer) semantics (ARCHITECTURE.md).
#include "layers/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/softmax.h"
#include "ops/unary.h"
#include "ops/elementwise.h"

namespace realmt::layers {
namespace {

constexpr int64_t kB = 2, kT = 5, kD = 8, kH = 2;

Tensor random_input(uint64_t seed, Shape shape) {
  Generator g(seed);
  std::vector<float> v(shape.numel());
  for (auto& x : v) x = 2 * g.uniform() - 1;
  return Tensor::from_vector(v, shape);
}

// Key padding mask [B, T]: the last two positions of sentence 1 are padding.
Tensor pad_mask() {
  std::vector<float> m(kB * kT, 0.0f);
  m[1 * kT + 3] = m[1 * kT + 4] = -std::numeric_limits<float>::infinity();
  return Tensor::from_vector(m, {kB, kT});
}
// The same mask broadcastable to the scores [B, H, T, T], for ops::softmax.
Tensor pad_mask_4d() { return pad_mask().reshape({kB, 1, 1, kT}); }

struct Stack {
  graph::ParameterSet params;
  std::vector<MultiHeadAttention> layers;
  explicit Stack(int n) {
    for (int i = 0; i < n; ++i)
      layers.emplace_back(params, "l" + std::to_string(i), kD, kH, AttentionKind::kSelf);
    params.allocate(Device::cpu());
    Generator g(3);
    params.init(g);
  }
};

TEST(ResidualAttention, OneLayerEqualsVanillaAttention) {
  Stack s(1);
  const graph::Var x(random_input(1, {kB, kT, kD}));
  const Tensor mask = pad_mask();
  const auto none = s.layers[0].self_attend(x, mask, false, {.mode = ResidualMode::kNone});
  for (ResidualMode mode : {ResidualMode::kSum, ResidualMode::kMean}) {
    const auto res = s.layers[0].self_attend(x, mask, false, {.mode = mode});
    EXPECT_EQ(res.out.value().to_vector<float>(), none.out.value().to_vector<float>())
        << enum_name(mode);
    EXPECT_TRUE(res.scores.defined());
    EXPECT_FALSE(none.scores.defined());
  }
}

TEST(ResidualAttention, MaskedPositionsGetExactlyZeroAtEveryLayer) {
  Stack s(4);
  const Tensor mask = pad_mask();
  for (ResidualMode mode : {ResidualMode::kNone, ResidualMode::kSum, ResidualMode::kMean}) {
    graph::Var x(random_input(2, {kB, kT, kD}));
    graph::Var chain;
    for (int l = 0; l < 4; ++l) {
      const auto r = s.layers[l].self_attend(x, mask, false,
                                             {.mode = mode, .layer = l + 1, .prev_scores = chain});
      const auto p = r.probs.to_vector<float>();  // [B, H, T, T]
      for (int64_t h = 0; h < kH; ++h)
        for (int64_t q = 0; q < kT; ++q)
          for (int64_t k = 3; k < kT; ++k) EXPECT_EQ(p[((1 * kH + h) * kT + q) * kT + k], 0.0f);
      // The carried sum stays unmasked: finite everywhere.
      if (r.scores.defined()) {
        for (float v : r.scores.value().to_vector<float>()) ASSERT_TRUE(std::isfinite(v));
      }
      chain = r.scores;
      x = graph::Var(r.out.value());
    }
  }
}

TEST(ResidualAttention, RunningMeanLogitsEqualMeanOfPerLayerScores) {
  const int kLayers = 3;
  Stack s(kLayers);
  const Tensor mask = pad_mask();
  // Same input to every layer so each layer's raw scores can be computed on their own.
  const graph::Var x(random_input(4, {kB, kT, kD}));
  std::vector<Tensor> raw;
  for (int l = 0; l < kLayers; ++l)
    raw.push_back(
        s.layers[l].self_attend(x, mask, false, {.mode = ResidualMode::kSum}).scores.value());
  graph::Var chain;
  Tensor sum = Tensor::zeros(raw[0].shape());
  for (int l = 0; l < kLayers; ++l) {
    const auto r = s.layers[l].self_attend(
        x, mask, false, {.mode = ResidualMode::kMean, .layer = l + 1, .prev_scores = chain});
    sum = ops::add(sum, raw[l]);
    const Tensor want = ops::softmax(ops::scale(sum, 1.0 / (l + 1)), pad_mask_4d());
    const auto got = r.probs.to_vector<float>();
    const auto exp = want.to_vector<float>();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], exp[i], 1e-6) << "layer " << l + 1;
    // And S_l is the running sum itself.
    const auto sl = r.scores.value().to_vector<float>();
    const auto ss = sum.to_vector<float>();
    for (size_t i = 0; i < sl.size(); ++i) EXPECT_NEAR(sl[i], ss[i], 1e-5);
    chain = r.scores;
  }
}

TEST(ResidualAttention, SumModeUsesTheUnscaledRunningSum) {
  Stack s(2);
  const graph::Var x(random_input(5, {kB, kT, kD}));
  const auto r1 = s.layers[0].self_attend(x, Tensor(), false, {.mode = ResidualMode::kSum});
  const auto raw2 = s.layers[1].self_attend(x, Tensor(), false, {.mode = ResidualMode::kSum});
  const auto r2 = s.layers[1].self_attend(
      x, Tensor(), false, {.mode = ResidualMode::kSum, .layer = 2, .prev_scores = r1.scores});
  const Tensor want = ops::softmax(ops::add(r1.scores.value(), raw2.scores.value()));
  const auto got = r2.probs.to_vector<float>();
  const auto exp = want.to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], exp[i], 1e-6);
}

TEST(ResidualAttention, ErrorsNameTheProblem) {
  graph::ParameterSet p;
  EXPECT_THROW(MultiHeadAttention(p, "a", 10, 3, AttentionKind::kSelf), Error);
  EXPECT_THROW(parse_enum<ResidualMode>("avg", "residual attention mode"), Error);
}

}  // namespace
}  // namespace realmt::layers
