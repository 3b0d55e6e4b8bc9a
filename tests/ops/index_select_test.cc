// index_select: errors name the bad position; gathers any dtype exactly.
#include <gtest/gtest.h>

#include "ops/index_select.h"

namespace realmt::ops {
namespace {

Tensor idx(std::vector<int32_t> v) {
  return Tensor::from_vector(v, Shape{static_cast<int64_t>(v.size())});
}

TEST(IndexSelect, OutOfRangeNamesThePosition) {
  const Tensor x = Tensor::zeros({4, 5});
  try {
    index_select(x, 0, idx({0, 3, 4, 1}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("indices[2] = 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(index_select(x, 1, idx({-1})), Error);
  EXPECT_THROW(index_select(x, 0, Tensor::zeros({2}, DType::kF32)), Error);
  EXPECT_THROW(index_select(x, 0, Tensor::zeros({2, 1}, DType::kI32)), Error);
  EXPECT_THROW(index_select_backward(Tensor::zeros({3, 5}), x.shape(), 0, idx({0, 1})), Error);
}

TEST(IndexSelect, GathersBytesOfAnyDType) {
  const Tensor x = Tensor::from_vector<uint8_t>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  EXPECT_EQ(index_select(x, 0, idx({2, 2, 0})).to_vector<uint8_t>(),
            (std::vector<uint8_t>{5, 6, 5, 6, 1, 2}));
  const Tensor h = Tensor::from_vector<Half>({Half(1.5f), Half(-2.f), Half(65504.f)}, Shape{3});
  const Tensor y = index_select(h, 0, idx({2, 0}));
  EXPECT_EQ(y.to_vector<Half>()[0].bits, Half(65504.f).bits);
}

TEST(IndexSelect, BackwardSumsRepeatsInOrder) {
  const Tensor dy = Tensor::from_vector<double>({1, 10, 100, 1000}, Shape{4, 1});
  const Tensor dx = index_select_backward(dy, Shape{3, 1}, 0, idx({2, 0, 2, 2}));
  EXPECT_EQ(dx.to_vector<double>(), (std::vector<double>{10, 0, 1101}));
}

}  // namespace
}  // namespace realmt::ops
