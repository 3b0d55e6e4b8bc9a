// Vectorisable float exp and log for CPU kernels. std::exp does not vectorise without
// -ffast-math, so the hot loops (softmax, cross-entropy, GELU/swish) use these branch-free
// versions, which GCC turns into SIMD code under `#pragma omp simd`.
// Accuracy: exp within 2 ulp on [-87.3, 88.7], log within 2 ulp on normal floats (checked
// against std:: in tests/core/fast_math_test.cc). fast_log is for positive normal floats only.
// f64 code keeps std:: (the reference path).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace realmt {

inline float fast_exp(float x) {
  // exp(x) = 2^n * exp(r), n = round(x / ln2), r = x - n ln2 in [-ln2/2, ln2/2];
  // exp(r) by a degree-6 polynomial (Cephes expf coefficients).
  // Below -87 the result is under the smallest normal float: flush to 0 (the scaling by
  // exponent bits below would otherwise underflow into the sign). Above 88.37 it is +inf.
  const bool tiny = x < -87.0f;
  x = x < 88.3762626647949f ? x : 88.3762626647949f;
  x = x > -87.0f ? x : -87.0f;
  const float n = std::nearbyint(x * 1.44269504088896341f);
  float r = x - n * 0.693359375f;  // ln2 split in two parts for an exact product
  r = r + n * 2.12194440e-4f;
  const float r2 = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r2 + r + 1.0f;
  // Scale by 2^n through the exponent bits (n in [-127, 128] after the clamp).
  const int32_t ni = static_cast<int32_t>(n);
  int32_t bits;
  std::memcpy(&bits, &e, 4);
  bits += ni << 23;
  float out;
  std::memcpy(&out, &bits, 4);
  return tiny ? 0.0f : out;
}

// Returns exp(x) but exactly 0 for x = -inf (masked logits must give exactly zero).
inline float fast_exp_masked(float x) { return x == -INFINITY ? 0.0f : fast_exp(x); }

inline float fast_log(float x) {
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log(x) = e ln2 + log(m), log(m) by the
  // Cephes logf polynomial in (m - 1).
  int32_t bits;
  std::memcpy(&bits, &x, 4);
  int32_t e = ((bits >> 23) & 0xff) - 126;
  bits = (bits & 0x807fffff) | 0x3f000000;  // m in [0.5, 1)
  float m;
  std::memcpy(&m, &bits, 4);
  const bool small = m < 0.707106781186547524f;
  e -= small ? 1 : 0;
  m = small ? m + m - 1.0f : m - 1.0f;
  const float z = m * m;
  float y = 7.0376836292e-2f;
  y = y * m - 1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m - 1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m - 1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m - 2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;
  const float fe = static_cast<float>(e);
  y += fe * -2.12194440e-4f;
  y += -0.5f * z;
  float out = m + y;
  out += fe * 0.693359375f;
  return out;
}

}  // namespace realmt
