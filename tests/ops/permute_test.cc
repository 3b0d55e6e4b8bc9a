// permute: exact bytes for every dtype, the plan's collapsing, and argument errors.
#include <gtest/gtest.h>

#include <numeric>

#include "ops/permute.h"

namespace realmt::ops {
namespace {

template <typename T>
void expect_transposed_exactly(DType dt) {
  const int64_t m = 70, n = 41;  // partial tiles on both axes
  std::vector<T> v(m * n);
  for (int64_t i = 0; i < m * n; ++i) v[i] = scalar_cast<T>(static_cast<double>(i % 251));
  const Tensor x = Tensor::from_vector(v, Shape{m, n});
  const Tensor y = transpose(x, 0, 1);
  ASSERT_EQ(y.shape(), (Shape{n, m}));
  ASSERT_EQ(y.dtype(), dt);
  const T* py = y.data<T>();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_EQ(std::memcmp(&py[j * m + i], &v[i * n + j], sizeof(T)), 0) << i << "," << j;
}

TEST(Permute, EveryDTypeIsCopiedExactly) {
  expect_transposed_exactly<float>(DType::kF32);
  expect_transposed_exactly<double>(DType::kF64);
  expect_transposed_exactly<Half>(DType::kF16);
  expect_transposed_exactly<BFloat16>(DType::kBF16);
  expect_transposed_exactly<int32_t>(DType::kI32);
  expect_transposed_exactly<uint8_t>(DType::kU8);
}

TEST(Permute, HeadSplitAndMergeRoundTrip) {
  const int64_t b = 3, t = 17, h = 8, dh = 16;
  std::vector<int32_t> v(b * t * h * dh);
  std::iota(v.begin(), v.end(), 0);
  const Tensor x = Tensor::from_vector(v, Shape{b, t, h, dh});
  const Tensor split = permute(x, {0, 2, 1, 3});
  ASSERT_EQ(split.shape(), (Shape{b, h, t, dh}));
  // [b, h, t, d] reads x[b, t, h, d].
  EXPECT_EQ(split.data<int32_t>()[((1 * h + 5) * t + 9) * dh + 7], ((1 * t + 9) * h + 5) * dh + 7);
  EXPECT_EQ(permute(split, {0, 2, 1, 3}).to_vector<int32_t>(), v);
}

TEST(Permute, PlanCollapsesAxes) {
  // Head split keeps Dh contiguous: rows of Dh.
  PermutePlan p = plan_permute(Shape{2, 5, 3, 4}, {0, 2, 1, 3});
  EXPECT_EQ(p.rank, 4);
  EXPECT_EQ(p.x_strides[3], 1);
  // [A, B, C] -> [C, A, B] is a 2-D transpose of [A*B, C].
  p = plan_permute(Shape{2, 3, 4}, {2, 0, 1});
  ASSERT_EQ(p.rank, 2);
  EXPECT_EQ(p.dims[0], 4);
  EXPECT_EQ(p.dims[1], 6);
  EXPECT_EQ(p.x_strides[1], 4);
  EXPECT_EQ(p.x_unit, 0);
  // Identity and extent-1 shuffles are one contiguous run.
  p = plan_permute(Shape{1, 4, 1, 3}, {2, 1, 0, 3});
  ASSERT_EQ(p.rank, 1);
  EXPECT_EQ(p.dims[0], 12);
}

TEST(Permute, RejectsBadPermutations) {
  const Tensor x = Tensor::zeros({2, 3, 4});
  EXPECT_THROW(permute(x, {0, 1}), Error);
  EXPECT_THROW(permute(x, {0, 1, 1}), Error);
  EXPECT_THROW(permute(x, {0, 1, 3}), Error);
  EXPECT_THROW(transpose(x, 0, 3), Error);
  try {
    permute(x, {0, 2, 0});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("{0, 2, 0}"), std::string::npos) << e.what();
  }
}

TEST(Permute, EmptyTensor) {
  const Tensor y = permute(Tensor::zeros({0, 3}), {1, 0});
  EXPECT_EQ(y.shape(), (Shape{3, 0}));
}

}  // namespace
}  // namespace realmt::ops
