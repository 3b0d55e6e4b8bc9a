// masked_fill: argument errors, integer dtypes, and the fill value's exact bits.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/masked_fill.h"

namespace realmt::ops {
namespace {

Tensor mask010() { return Tensor::from_vector<uint8_t>({0, 1, 0}, Shape{3}); }

TEST(MaskedFill, Errors) {
  EXPECT_THROW(masked_fill(Tensor::zeros({2, 4}), mask010(), 0), Error);  // shape
  EXPECT_THROW(masked_fill(Tensor::zeros({3}), Tensor::zeros({2, 3}, DType::kU8), 0),
               Error);                                                             // rank
  EXPECT_THROW(masked_fill(Tensor::zeros({2, 3}), Tensor::zeros({3}), 0), Error);  // f32 mask
  EXPECT_THROW(masked_fill(Tensor::zeros({3}, DType::kI32), mask010(), 0.5),
               Error);                                                               // not integral
  EXPECT_THROW(masked_fill(Tensor::zeros({3}, DType::kU8), mask010(), 256), Error);  // out of range
  EXPECT_THROW(masked_fill(Tensor::zeros({3}, DType::kI32), mask010(), -INFINITY), Error);
}

TEST(MaskedFill, IntegerAndHalfDTypes) {
  const Tensor xi = Tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(masked_fill(xi, mask010(), -7).to_vector<int32_t>(),
            (std::vector<int32_t>{1, -7, 3, 4, -7, 6}));
  const Tensor xh = Tensor::full({2, 3}, 1.0, DType::kF16);
  const std::vector<Half> y = masked_fill(xh, mask010(), -INFINITY).to_vector<Half>();
  EXPECT_EQ(y[1].bits, 0xfc00);  // -inf in binary16
  EXPECT_EQ(y[0].bits, 0x3c00);  // 1.0
}

TEST(MaskedFill, NonzeroMaskBytesAllCount) {
  const Tensor m = Tensor::from_vector<uint8_t>({0, 255, 2}, Shape{3});
  EXPECT_EQ(masked_fill(Tensor::zeros({3}), m, 1.0).to_vector<float>(),
            (std::vector<float>{0, 1, 1}));
}

}  // namespace
}  // namespace realmt::ops
