// Small helpers for writing op cases: host doubles in and out, strides.
#pragma once

#include <vector>

#include "op_harness.h"

namespace realmt::test {

struct Host {
  Shape shape;
  std::vector<double> v;
  explicit Host(const Tensor& t) : shape(t.shape()), v(to_doubles(t)) {}
  Host(const Shape& s, double fill = 0.0) : shape(s), v(s.numel(), fill) {}
  Tensor tensor() const { return f64_tensor(shape, v); }
};

// Flat index of a multi-index into a shape, with broadcasting (extent-1 axes read index 0).
inline int64_t broadcast_index(const Shape& s, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  const int r = static_cast<int>(idx.size());
  for (int i = 0; i < s.rank(); ++i) {
    const int64_t k = idx[r - s.rank() + i];
    off = off * s[i] + (s[i] == 1 ? 0 : k);
  }
  return off;
}

// A uniform floating input in [lo, hi): differentiable (spec) or not (constant).
inline InputSpec spec(const Shape& shape, double lo, double hi) {
  InputSpec s;
  s.shape = shape;
  s.lo = lo;
  s.hi = hi;
  return s;
}
inline InputSpec constant(const Shape& shape, double lo, double hi) {
  InputSpec s = spec(shape, lo, hi);
  s.differentiable = false;
  return s;
}

inline std::vector<int64_t> unravel(int64_t flat, const Shape& s) {
  std::vector<int64_t> idx(s.rank());
  for (int i = s.rank() - 1; i >= 0; --i) {
    idx[i] = flat % s[i];
    flat /= s[i];
  }
  return idx;
}

}  // namespace realmt::test
