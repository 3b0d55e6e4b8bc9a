// Helpers shared by the CUDA tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/rng.h"
#include "core/runtime.h"
#include "core/tensor.h"

// Skips the calling test (reported as skipped by ctest) when no GPU is visible.
#define REALMT_REQUIRE_CUDA()                                     \
  do {                                                            \
    if (::realmt::device_count(::realmt::DeviceType::kCuda) == 0) \
      GTEST_SKIP() << "no CUDA device visible";                   \
  } while (0)

namespace realmt::testing {

// n uniform values in [lo, hi) from a fixed seed.
inline std::vector<float> uniform_values(int64_t n, float lo, float hi, uint64_t seed = 7) {
  Generator g(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = lo + (hi - lo) * g.uniform();
  return v;
}

// A tensor of the given dtype holding values (rounded to the dtype), on the CPU.
inline Tensor host_tensor(const std::vector<float>& values, const Shape& shape, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = scalar_cast<T>(values[i]);
  });
  return t;
}

// The elements of t (any device, any dtype) as doubles.
inline std::vector<double> as_doubles(const Tensor& t) {
  Tensor h = t.to(Device::cpu());
  std::vector<double> out(h.numel());
  for (int64_t i = 0; i < h.numel(); ++i) out[i] = h.at(i);
  return out;
}

// Expects |got - want| <= atol + rtol |want| element by element.
inline void expect_close(const Tensor& got, const Tensor& want, double rtol, double atol) {
  ASSERT_EQ(got.shape(), want.shape());
  const std::vector<double> g = as_doubles(got), w = as_doubles(want);
  int failures = 0;
  for (size_t i = 0; i < g.size() && failures < 5; ++i) {
    const bool ok = g[i] == w[i] ||  // equal infinities (masked positions) too
                    std::fabs(g[i] - w[i]) <= atol + rtol * std::fabs(w[i]) ||
                    (std::isnan(g[i]) && std::isnan(w[i]));
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << g[i] << ", want " << w[i];
    }
  }
}

}  // namespace realmt::testing
