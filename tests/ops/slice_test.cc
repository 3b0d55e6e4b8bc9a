// slice: bounds errors name the range and shape; results are copies.
#include <gtest/gtest.h>

#include "ops/slice.h"

namespace realmt::ops {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Slice, OutOfBoundsNamesRangeAndShape) {
  const Tensor x = Tensor::zeros({2, 5, 3});
  const std::string m = message_of([&] { slice(x, 1, 2, 6); });
  EXPECT_NE(m.find("[2, 6)"), std::string::npos) << m;
  EXPECT_NE(m.find("[2, 5, 3]"), std::string::npos) << m;
  EXPECT_THROW(slice(x, 1, -1, 2), Error);
  EXPECT_THROW(slice(x, 1, 3, 2), Error);
  EXPECT_THROW(slice(x, 3, 0, 1), Error);
  EXPECT_THROW(slice_backward(Tensor::zeros({2, 4, 3}), x.shape(), 1, 2), Error);
  EXPECT_THROW(slice_backward(Tensor::zeros({2, 2, 4}), x.shape(), 1, 0), Error);
}

TEST(Slice, IsACopyAndKeepsDType) {
  const Tensor x = Tensor::from_vector<uint8_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Tensor y = slice(x, -1, 1, 3);
  EXPECT_FALSE(y.shares_storage_with(x));
  EXPECT_EQ(y.to_vector<uint8_t>(), (std::vector<uint8_t>{2, 3, 5, 6}));
  const Tensor e = slice(x, 0, 1, 1);
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  EXPECT_EQ(slice_backward(y, x.shape(), 1, 1).to_vector<uint8_t>(),
            (std::vector<uint8_t>{0, 2, 3, 0, 5, 6}));
}

}  // namespace
}  // namespace realmt::ops
