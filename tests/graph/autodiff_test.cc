#include <gtest/gtest.h>

#include "graph/elementwise.h"
#include "graph/matmul.h"
#include "graph/parameters.h"
#include "graph/reduce.h"
#include "graph/unary.h"

namespace realmt::graph {
namespace {

Tensor vec(std::vector<float> v) {
  return Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
}

TEST(Autodiff, ChainAndFanOut) {
  // y = sum(x * x + 3 x) -> dy/dx = 2x + 3; x is used three times.
  Var x(vec({1, -2, 0.5f}), true);
  Var y = sum_all(add(mul(x, x), scale(x, 3.0)));
  backward(y);
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{5, -1, 4}));
}

TEST(Autodiff, GradientsAccumulateAcrossBackwardCalls) {
  Var x(vec({1, 2}), true);
  backward(sum_all(scale(x, 2.0)));
  backward(sum_all(scale(x, 2.0)));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{4, 4}));
  x.zero_grad();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0}));
}

TEST(Autodiff, NoGradRecordsNothing) {
  Var x(vec({1, 2}), true);
  NoGradGuard guard;
  Var y = sum_all(mul(x, x));
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.node()->inputs.empty());
  EXPECT_THROW(backward(y), Error);
}

TEST(Autodiff, ConstantsGetNoGradient) {
  Var x(vec({1, 2}), true);
  Var c(vec({3, 4}));
  backward(sum_all(mul(x, c)));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{3, 4}));
  EXPECT_FALSE(c.grad().defined());
}

TEST(Autodiff, BackwardNeedsScalar) {
  Var x(vec({1, 2}), true);
  EXPECT_THROW(backward(scale(x, 2.0)), Error);
}

TEST(Parameters, NamedArenaBackedWithBoundGradients) {
  ParameterSet params;
  params.add("encoder.layers.0.ffn.w1.weight", {4, 3});
  params.add("encoder.layers.0.ffn.w1.bias", {3});
  EXPECT_THROW(params.add("encoder.layers.0.ffn.w1.bias", {3}), Error);
  EXPECT_THROW(params.add("Encoder..x", {3}), Error);
  params.allocate(Device::cpu());
  EXPECT_THROW(params.add("late", {1}), Error);
  EXPECT_EQ(params.numel(), 15);
  const Var& w = params["encoder.layers.0.ffn.w1.weight"];
  const Var& b = params["encoder.layers.0.ffn.w1.bias"];
  EXPECT_TRUE(w.value().shares_storage_with(params.values().flat()));
  // y = sum(x W + b) -> dW = x^T 1, db = rows.
  Var x(Tensor::full({2, 4}, 1.0), false);
  backward(sum_all(add(matmul(x, w), b)));
  EXPECT_TRUE(w.grad().shares_storage_with(params.grads().flat()));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(w.grad().at(0), 2.0);
  params.zero_grad();
  EXPECT_EQ(b.grad().at(0), 0.0);
  EXPECT_THROW(params["nope"], Error);
}

}  // namespace
}  // namespace realmt::graph
