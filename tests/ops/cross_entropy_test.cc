// Cross-entropy checks outside the harness: errors, exact zeros at padding, known values.
#include "ops/cross_entropy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "core/rng.h"

namespace realmt {
namespace {

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CrossEntropy, TargetOutsideVocabularyNamesRowAndValue) {
  const Tensor logits = Tensor::zeros({3, 5});
  const std::string msg = error_of([&] {
    ops::cross_entropy(logits, Tensor::from_vector<int32_t>({1, 2, 7}, Shape{3}));
  });
  EXPECT_NE(msg.find("target 7 at row 2"), std::string::npos) << msg;
  const std::string neg = error_of([&] {
    ops::cross_entropy(logits, Tensor::from_vector<int32_t>({-3, 2, 1}, Shape{3}));
  });
  EXPECT_NE(neg.find("target -3 at row 0"), std::string::npos) << neg;
  // The ignore_index itself may lie outside the vocabulary.
  EXPECT_EQ(error_of([&] {
              ops::cross_entropy(logits, Tensor::from_vector<int32_t>({-1, 2, 1}, Shape{3}),
                                 {.ignore_index = -1});
            }),
            "");
}

TEST(CrossEntropy, RejectsBadShapesAndOptions) {
  const Tensor logits = Tensor::zeros({3, 5});
  EXPECT_NE(error_of([&] { ops::cross_entropy(logits, Tensor::zeros({4}, DType::kI32)); }), "");
  EXPECT_NE(error_of([&] { ops::cross_entropy(logits, Tensor::zeros({3})); }), "");  // f32 targets
  EXPECT_NE(error_of([&] {
              ops::cross_entropy(logits, Tensor::zeros({3}, DType::kI32), {.label_smoothing = 1.5});
            }),
            "");
}

TEST(CrossEntropy, PaddedRowsAreExactlyZero) {
  for (DType dt : {DType::kF32, DType::kF64}) {
    const Tensor logits = Tensor::full({4, 7}, 0.5, dt);
    const Tensor targets = Tensor::from_vector<int32_t>({0, 3, 0, 6}, Shape{4});
    const ops::CrossEntropyOptions o{.label_smoothing = 0.1, .ignore_index = 0};
    const ops::CrossEntropyResult r = ops::cross_entropy(logits, targets, o);
    const Tensor dx =
        ops::cross_entropy_backward(Tensor::full({4}, 1.0, dt), logits, targets, r.lse, o);
    for (int64_t row : {0, 2}) {
      EXPECT_EQ(r.loss.at(row), 0.0);
      for (int64_t j = 0; j < 7; ++j) EXPECT_EQ(dx.at(row * 7 + j), 0.0) << row << "," << j;
    }
    EXPECT_GT(r.loss.at(1), 0.0);
  }
}

TEST(CrossEntropy, UniformLogitsGiveLogV) {
  // p = 1/V everywhere, so loss = -sum_j q_j log(1/V) = log V whatever the smoothing.
  const int64_t v = 32000;
  const Tensor logits = Tensor::full({3, v}, 7.25);
  const Tensor targets = Tensor::from_vector<int32_t>({5, 31999, 1}, Shape{3});
  for (double eps : {0.0, 0.1, 1.0}) {
    const ops::CrossEntropyResult r = ops::cross_entropy(logits, targets, {.label_smoothing = eps});
    for (int64_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(r.loss.at(i), std::log(double(v)), 2e-5) << eps;
      EXPECT_NEAR(r.lse.at(i), 7.25 + std::log(double(v)), 2e-5) << eps;
    }
  }
}

TEST(CrossEntropy, GradientRowsSumToZero) {
  // sum_j (p_j - q_j) = 1 - 1 = 0 for every non-ignored row.
  Generator g(5);
  std::vector<float> x(5 * 1000);
  for (float& e : x) e = 10.0f * g.uniform() - 5.0f;
  const Tensor logits = Tensor::from_vector(x, Shape{5, 1000});
  const Tensor targets = Tensor::from_vector<int32_t>({1, 999, 500, 2, 0}, Shape{5});
  const ops::CrossEntropyOptions o{.label_smoothing = 0.1, .ignore_index = -1};
  const Tensor lse = ops::cross_entropy(logits, targets, o).lse;
  const Tensor dx = ops::cross_entropy_backward(Tensor::full({5}, 1.0), logits, targets, lse, o);
  for (int64_t i = 0; i < 5; ++i) {
    double s = 0;
    for (int64_t j = 0; j < 1000; ++j) s += dx.at(i * 1000 + j);
    EXPECT_NEAR(s, 0.0, 1e-5) << "row " << i;
  }
}

}  // namespace
}  // namespace realmt
