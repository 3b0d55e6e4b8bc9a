// topk / argmax: exact tie order, NaN, errors, and the chunked path against the single pass.
#include <gtest/gtest.h>

#include <cmath>

#include "core/parallel.h"
#include "core/rng.h"
#include "ops/topk.h"

namespace realmt::ops {
namespace {

TEST(Topk, TiesKeepLowerIndexFirst) {
  const Tensor x = Tensor::from_vector<float>({1, 3, 2, 3, 3, 0, 2}, Shape{7});
  auto [v, i] = topk(x, 5);
  EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{3, 3, 3, 2, 2}));
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{1, 3, 4, 2, 6}));
  EXPECT_EQ(argmax(x).item(), 1);
  EXPECT_EQ(argmax(x).rank(), 0);
}

TEST(Topk, NaNRanksAsMinusInfinity) {
  const float inf = INFINITY;
  const Tensor x = Tensor::from_vector<float>({NAN, -inf, 5, NAN, -1}, Shape{1, 5});
  auto [v, i] = topk(x, 5);
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{2, 4, 0, 1, 3}));
  EXPECT_TRUE(std::isnan(v.at(2)));
  EXPECT_EQ(v.at(3), -inf);
  EXPECT_EQ(argmax(Tensor::from_vector<float>({NAN, NAN}, Shape{2})).item(), 0);
}

TEST(Topk, Errors) {
  EXPECT_THROW(topk(Tensor::zeros({2, 3}), 4), Error);
  EXPECT_THROW(topk(Tensor::zeros({2, 3}), -1), Error);
  EXPECT_THROW(topk(Tensor::zeros({3}, DType::kI32), 1), Error);
  EXPECT_THROW(argmax(Tensor::zeros({2, 0})), Error);
  EXPECT_THROW(argmax(Tensor::zeros({2}, DType::kU8)), Error);
  auto [v, i] = topk(Tensor::zeros({2, 3}), 0);
  EXPECT_EQ(v.shape(), (Shape{2, 0}));
  EXPECT_EQ(i.dtype(), DType::kI32);
}

// Splitting rows into chunks (few rows, many threads) must not change the result, ties included.
TEST(Topk, ChunkedRowsMatchOnePass) {
  Generator g(7);
  std::vector<float> v(2 * 100000);
  for (float& e : v) e = std::floor(g.uniform() * 1000.f);  // many ties at the top
  const Tensor x = Tensor::from_vector(v, Shape{2, 100000});
  const int saved = num_threads();
  set_num_threads(1);
  auto [v1, i1] = topk(x, 16);
  set_num_threads(8);
  auto [v8, i8] = topk(x, 16);
  set_num_threads(saved);
  EXPECT_EQ(i1.to_vector<int32_t>(), i8.to_vector<int32_t>());
  EXPECT_EQ(v1.to_vector<float>(), v8.to_vector<float>());
  EXPECT_EQ(v1.at(0), 999.f);
}

}  // namespace
}  // namespace realmt::ops
