// concat: mismatched inputs are errors that name them; any dtype is joined exactly.
#include <gtest/gtest.h>

#include "ops/concat.h"

namespace realmt::ops {
namespace {

TEST(Concat, RejectsMismatchedInputs) {
  EXPECT_THROW(concat({}, 0), Error);
  EXPECT_THROW(concat({Tensor::zeros({2, 3}), Tensor::zeros({3, 3})}, 1), Error);
  EXPECT_THROW(concat({Tensor::zeros({2, 3}), Tensor::zeros({2, 3, 1})}, 0), Error);
  EXPECT_THROW(concat({Tensor::zeros({2, 3}), Tensor::zeros({2, 3}, DType::kF64)}, 0), Error);
  EXPECT_THROW(concat({Tensor::zeros({2, 3})}, 2), Error);
  try {
    concat({Tensor::zeros({2, 3}), Tensor::zeros({2, 4}), Tensor::zeros({5, 3})}, 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 2 has shape [5, 3]"), std::string::npos)
        << e.what();
  }
}

TEST(Concat, JoinsIntegersExactly) {
  const Tensor a = Tensor::from_vector<int32_t>({1, 2, 3, 4}, Shape{2, 2});
  const Tensor b = Tensor::from_vector<int32_t>({5, 6}, Shape{2, 1});
  const Tensor y = concat({a, b}, -1);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(y.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 5, 3, 4, 6}));
  EXPECT_EQ(concat({Tensor::zeros({0, 2}), Tensor::zeros({0, 2})}, 0).shape(), (Shape{0, 2}));
}

}  // namespace
}  // namespace realmt::ops
