// cast: exact bit patterns at the rounding and overflow edges, saturation, and graph errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "graph/cast.h"
#include "ops/cast.h"

namespace realmt::ops {
namespace {

template <typename From>
std::vector<uint16_t> bits_of(const std::vector<From>& v, DType to) {
  const Tensor y = cast(Tensor::from_vector(v, Shape{static_cast<int64_t>(v.size())}), to);
  std::vector<uint16_t> out(v.size());
  std::memcpy(out.data(), y.raw(), 2 * v.size());
  return out;
}

TEST(Cast, F32ToF16Bits) {
  const float t11 = std::ldexp(1.f, -11), t25 = std::ldexp(1.f, -25);
  EXPECT_EQ(bits_of<float>({65504.f, 65519.f, 65520.f, -1e5f, 1 + t11, 1 + 3 * t11,
                            std::ldexp(1.f, -24), t25, 3 * t25, -0.f, NAN},
                           DType::kF16),
            (std::vector<uint16_t>{0x7bff, 0x7bff, 0x7c00, 0xfc00, 0x3c00, 0x3c02, 0x0001, 0x0000,
                                   0x0002, 0x8000, 0x7e00}));
}

TEST(Cast, F32ToBF16Bits) {
  const float t8 = std::ldexp(1.f, -8);
  EXPECT_EQ(bits_of<float>({1 + t8, 1 + 3 * t8, 1 + t8 + std::ldexp(1.f, -20), 3.4e38f, -INFINITY},
                           DType::kBF16),
            (std::vector<uint16_t>{0x3f80, 0x3f82, 0x3f81, 0x7f80, 0xff80}));
}

// One correct rounding, not two: via a plain f32 these would land on the even neighbour.
TEST(Cast, NoDoubleRoundingFromF64AndI32) {
  EXPECT_EQ(bits_of<double>({1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)}, DType::kF16),
            (std::vector<uint16_t>{0x3c01}));
  EXPECT_EQ(bits_of<int32_t>({(1 << 24) + (1 << 16) + 1}, DType::kBF16),
            (std::vector<uint16_t>{0x4b81}));
  EXPECT_EQ(bits_of<double>({1e300, -1e300}, DType::kBF16),
            (std::vector<uint16_t>{0x7f80, 0xff80}));
}

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  const Tensor x =
      Tensor::from_vector<float>({-1.7f, 1.7f, 3e9f, -3e9f, NAN, 300.5f, -5.5f}, Shape{7});
  EXPECT_EQ(cast(x, DType::kI32).to_vector<int32_t>(),
            (std::vector<int32_t>{-1, 1, 2147483647, -2147483647 - 1, 0, 300, -5}));
  EXPECT_EQ(cast(x, DType::kU8).to_vector<uint8_t>(),
            (std::vector<uint8_t>{0, 1, 255, 0, 0, 255, 0}));
  const Tensor i = Tensor::from_vector<int32_t>({-1, 256, 257}, Shape{3});
  EXPECT_EQ(cast(i, DType::kU8).to_vector<uint8_t>(),
            (std::vector<uint8_t>{255, 0, 1}));  // modulo 256
}

TEST(Cast, SameDTypeIsACopy) {
  const Tensor x = Tensor::full({4}, 2.0);
  const Tensor y = cast(x, DType::kF32);
  EXPECT_FALSE(y.shares_storage_with(x));
  EXPECT_EQ(y.to_vector<float>(), x.to_vector<float>());
}

TEST(Cast, GraphRefusesIntegerCastsThatNeedGradients) {
  graph::Var x(Tensor::full({2}, 1.0, DType::kF64), true);
  EXPECT_THROW(graph::cast(x, DType::kI32), Error);
  graph::Var c(Tensor::full({2}, 1.0, DType::kF64));
  EXPECT_EQ(graph::cast(c, DType::kI32).dtype(), DType::kI32);  // constants may
}

}  // namespace
}  // namespace realmt::ops
