// copy_to: a fresh tensor with the same bytes, every dtype; unknown devices are errors.
#include <gtest/gtest.h>

#include "core/runtime.h"
#include "graph/copy.h"
#include "graph/reduce.h"
#include "ops/copy.h"

namespace realmt::ops {
namespace {

TEST(CopyTo, NeverAliasesAndKeepsBytes) {
  const Tensor x = Tensor::from_vector<int32_t>({1, -2, 3, 2147483647}, Shape{2, 2});
  const Tensor y = copy_to(x, Device::cpu());
  EXPECT_FALSE(y.shares_storage_with(x));
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_EQ(y.to_vector<int32_t>(), x.to_vector<int32_t>());
  const Tensor u = Tensor::from_vector<uint8_t>({0, 255, 7}, Shape{3});
  EXPECT_EQ(copy_to(u, Device::cpu()).to_vector<uint8_t>(), u.to_vector<uint8_t>());
}

TEST(CopyTo, GpuRoundTripOrClearError) {
  const Tensor x = Tensor::from_vector<double>({1.5, -2.25}, Shape{2});
  if (device_count(DeviceType::kCuda) == 0) {
    EXPECT_THROW(copy_to(x, Device::cuda(0)), Error);
    return;
  }
  const Tensor g = copy_to(x, Device::cuda(0));
  EXPECT_EQ(g.device(), Device::cuda(0));
  EXPECT_EQ(copy_to(g, Device::cpu()).to_vector<double>(), x.to_vector<double>());
}

TEST(CopyTo, GradientReturnsToTheSourceDevice) {
  graph::Var x(Tensor::from_vector<double>({1, 2, 3}, Shape{3}), true);
  const Device other = device_count(DeviceType::kCuda) > 0 ? Device::cuda(0) : Device::cpu();
  graph::Var y = graph::copy_to(x, other);
  EXPECT_EQ(y.device(), other);
  graph::backward(graph::sum_all(graph::copy_to(y, Device::cpu())));
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().device(), Device::cpu());
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{1, 1, 1}));
}

}  // namespace
}  // namespace realmt::ops
