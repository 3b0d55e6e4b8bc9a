// Layer norm checks outside the harness: argument errors, thread-count independence of the
// dgamma/dbeta reduction, and the normalised statistics of the output.
#include "ops/layer_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "core/rng.h"

namespace realmt {
namespace {

Tensor uniform(const Shape& s, uint64_t seed, float lo, float hi) {
  Generator g(seed);
  std::vector<float> v(s.numel());
  for (float& e : v) e = lo + (hi - lo) * g.uniform();
  return Tensor::from_vector(v, s);
}

TEST(LayerNorm, RejectsBadArguments) {
  const Tensor x = Tensor::zeros({4, 8}), g = Tensor::full({8}, 1.0), b = Tensor::zeros({8});
  EXPECT_THROW(ops::layer_norm(x, Tensor::zeros({7}), b, 1e-5), Error);
  EXPECT_THROW(ops::layer_norm(x, g, Tensor::zeros({8}, DType::kF64), 1e-5), Error);
  EXPECT_THROW(ops::layer_norm(x, g, b, 0.0), Error);
  const ops::LayerNormResult r = ops::layer_norm(x, g, b, 1e-5);
  EXPECT_THROW(ops::layer_norm_backward(Tensor::zeros({4, 7}), x, g, r.mean, r.rstd), Error);
  EXPECT_THROW(ops::layer_norm_backward(x, x, g, Tensor::zeros({5}), r.rstd), Error);
}

TEST(LayerNorm, OutputRowsHaveZeroMeanUnitVariance) {
  const Tensor x = uniform({33, 257}, 3, -4.0f, 9.0f);
  const ops::LayerNormResult r =
      ops::layer_norm(x, Tensor::full({257}, 1.0), Tensor::zeros({257}), 1e-6);
  for (int64_t row = 0; row < 33; ++row) {
    double m = 0, v = 0;
    for (int64_t j = 0; j < 257; ++j) m += r.y.at(row * 257 + j) / 257;
    for (int64_t j = 0; j < 257; ++j) v += std::pow(r.y.at(row * 257 + j) - m, 2) / 257;
    EXPECT_NEAR(m, 0.0, 1e-6) << row;
    EXPECT_NEAR(v, 1.0, 1e-4) << row;
  }
}

TEST(LayerNorm, BackwardIsTheSameOnAnyNumberOfThreads) {
  const Tensor x = uniform({1000, 64}, 1, -2.0f, 2.0f), dy = uniform({1000, 64}, 2, -1.0f, 1.0f);
  const Tensor g = uniform({64}, 4, 0.5f, 1.5f), b = uniform({64}, 5, -1.0f, 1.0f);
  const int saved = num_threads();
  std::vector<std::vector<float>> runs;
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    const ops::LayerNormResult f = ops::layer_norm(x, g, b, 1e-5);
    const ops::LayerNormGrads d = ops::layer_norm_backward(dy, x, g, f.mean, f.rstd);
    std::vector<float> all = d.dgamma.to_vector<float>();
    for (float e : d.dbeta.to_vector<float>()) all.push_back(e);
    for (float e : d.dx.to_vector<float>()) all.push_back(e);
    runs.push_back(all);
  }
  set_num_threads(saved);
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

}  // namespace
}  // namespace realmt
