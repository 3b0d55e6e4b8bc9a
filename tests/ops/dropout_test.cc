// Dropout checks outside the harness: mask statistics, reproducibility by (seed, offset),
// offset arithmetic, option errors, and the generator bookkeeping of graph::dropout.
#include "graph/dropout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/rng.h"
#include "ops/dropout.h"

namespace realmt {
namespace {

// 1 where y kept the element, 0 where it was dropped (x is all ones, so kept values are > 0).
std::vector<int> mask_of(const Tensor& y) {
  std::vector<int> m;
  for (float v : y.to_vector<float>()) m.push_back(v != 0.0f);
  return m;
}

TEST(Dropout, KeptFractionIsWithinFiveSigmaOfOneMinusP) {
  const int64_t n = int64_t(1) << 20;
  const Tensor x = Tensor::full({n}, 1.0);
  for (double p : {0.1, 0.5}) {
    const Tensor y = ops::dropout(x, {.p = p, .seed = 3, .offset = 0});
    int64_t kept = 0;
    const float scale = static_cast<float>(1.0 / (1.0 - p));
    for (float v : y.to_vector<float>()) {
      ASSERT_TRUE(v == 0.0f || v == scale) << v;
      kept += v != 0.0f;
    }
    const double sigma = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(double(kept), n * (1 - p), 5 * sigma) << "p = " << p;
  }
}

TEST(Dropout, SameSeedAndOffsetGiveTheSameMaskOtherOffsetsAnother) {
  const Tensor x = Tensor::full({10000}, 1.0);
  const std::vector<int> a = mask_of(ops::dropout(x, {.p = 0.5, .seed = 9, .offset = 400}));
  EXPECT_EQ(a, mask_of(ops::dropout(x, {.p = 0.5, .seed = 9, .offset = 400})));
  const std::vector<int> b = mask_of(ops::dropout(x, {.p = 0.5, .seed = 9, .offset = 10400}));
  const std::vector<int> c = mask_of(ops::dropout(x, {.p = 0.5, .seed = 10, .offset = 400}));
  int64_t diff_b = 0, diff_c = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff_b += a[i] != b[i];
    diff_c += a[i] != c[i];
  }
  // Independent masks at p = 0.5 differ in about half the elements.
  EXPECT_GT(diff_b, 4000);
  EXPECT_GT(diff_c, 4000);
}

TEST(Dropout, ElementEUsesStreamIndexOffsetPlusE) {
  // Dropping the first k elements and advancing the offset by k selects the same stream
  // positions, aligned (k = 4) or not (k = 1, 3).
  const Tensor x = Tensor::full({103}, 1.0);
  const std::vector<int> full = mask_of(ops::dropout(x, {.p = 0.3, .seed = 5, .offset = 20}));
  for (int64_t k : {1, 3, 4}) {
    const std::vector<int> tail =
        mask_of(ops::dropout(x.narrow0(k, 103), {.p = 0.3, .seed = 5, .offset = 20 + uint64_t(k)}));
    EXPECT_EQ(tail, std::vector<int>(full.begin() + k, full.end())) << k;
  }
}

TEST(Dropout, IntegerThresholdEqualsTheUnitFloatComparison) {
  // Around each threshold, including p that falls between two representable unit floats.
  for (double p : {0.1, 0.3, 0.5, 0.5 + 0.4 / 16777216.0, 0.5 + 0.6 / 16777216.0, 0.999999}) {
    const uint32_t t = ops::dropout_threshold(p);
    for (uint32_t r = t > 2 ? t - 2 : 0; r < t + 2 && r < (1u << 24); ++r) {
      const uint32_t bits = (r << 8) | 0x5a;  // the low 8 bits do not matter
      EXPECT_EQ(ops::dropout_keep(bits, t), double(u32_to_unit_float(bits)) >= p) << p << " " << r;
    }
  }
}

TEST(Dropout, BackwardUsesTheForwardMaskAndScale) {
  const Tensor x = Tensor::full({999}, 2.0), dy = Tensor::full({999}, 3.0);
  const ops::DropoutOptions o{.p = 0.25, .seed = 1, .offset = 4};
  const std::vector<float> y = ops::dropout(x, o).to_vector<float>();
  const std::vector<float> dx = ops::dropout_backward(dy, o).to_vector<float>();
  for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(dx[i], y[i] * 1.5f) << i;
}

TEST(Dropout, ZeroPIsTheIdentityAndBadPIsAnError) {
  const Tensor x = Tensor::full({4}, 1.0);
  EXPECT_TRUE(ops::dropout(x, {.p = 0.0, .seed = 1, .offset = 0}).shares_storage_with(x));
  EXPECT_THROW(ops::dropout(x, {.p = 1.0, .seed = 1, .offset = 0}), Error);
  EXPECT_THROW(ops::dropout(x, {.p = -0.1, .seed = 1, .offset = 0}), Error);
  EXPECT_THROW(ops::dropout(x, {.p = std::nan(""), .seed = 1, .offset = 0}), Error);
  EXPECT_THROW(ops::dropout_backward(x, {.p = 1.5, .seed = 1, .offset = 0}), Error);
}

TEST(Dropout, GraphReservesNumbersFromTheGenerator) {
  Generator gen(21);
  gen.set_state(21, 8);
  const graph::Var x(Tensor::full({10}, 1.0), true);
  const graph::Var y = graph::dropout(x, 0.5, gen);
  EXPECT_EQ(gen.offset(), 8u + 12u);  // 10 numbers, rounded up to whole blocks of 4
  EXPECT_EQ(mask_of(y.value()),
            mask_of(ops::dropout(x.value(), {.p = 0.5, .seed = 21, .offset = 8})));
  const graph::Var z = graph::dropout(x, 0.0, gen);
  EXPECT_EQ(z.node(), x.node());
  EXPECT_EQ(gen.offset(), 20u);
}

}  // namespace
}  // namespace realmt
