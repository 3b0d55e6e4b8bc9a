// CPU optimizer kernels: one vectorised pass over the flat arenas, split over threads.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "ops/optimizer.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
void adam(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, const AdamStep& s) {
  T* pp = p.data<T>();
  const T* pg = g.data<T>();
  T* pm = m.data<T>();
  T* pv = v.data<T>();
  const T b1 = T(s.beta1), b2 = T(s.beta2), c1 = T(1 - s.beta1), c2 = T(1 - s.beta2);
  const T scale = T(s.grad_scale), lr = T(s.step_size), eps = T(s.eps);
  const T inv_bc2 = T(1.0 / s.bias_correction2);
  const bool denom = s.use_denominator;
  parallel_for(p.numel(), 12, [&](int64_t lo, int64_t hi) {
#pragma omp simd
    for (int64_t i = lo; i < hi; ++i) {
      const T gi = pg[i] * scale;
      const T mi = b1 * pm[i] + c1 * gi;
      const T vi = b2 * pv[i] + c2 * gi * gi;
      pm[i] = mi;
      pv[i] = vi;
      pp[i] -= denom ? lr * mi / (std::sqrt(vi * inv_bc2) + eps) : lr * mi;
    }
  });
}

template <typename T>
void ema(const Tensor& e, const Tensor& p, double alpha) {
  T* pe = e.data<T>();
  const T* pp = p.data<T>();
  const T a = T(alpha);
  parallel_for(p.numel(), 2, [&](int64_t lo, int64_t hi) {
#pragma omp simd
    for (int64_t i = lo; i < hi; ++i) pe[i] += a * (pp[i] - pe[i]);
  });
}

template <typename T>
double squares(const Tensor& x) {
  const T* px = x.data<T>();
  const int64_t n = x.numel();
  // Fixed chunks summed in order: the result does not depend on the thread count.
  constexpr int64_t kChunk = 1 << 16;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> part(chunks, 0.0);
  parallel_for(chunks, kChunk, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      double acc = 0;
      const int64_t end = std::min(n, (c + 1) * kChunk);
#pragma omp simd reduction(+ : acc)
      for (int64_t i = c * kChunk; i < end; ++i) acc += double(px[i]) * double(px[i]);
      part[c] = acc;
    }
  });
  double total = 0;
  for (double v : part) total += v;
  return total;
}

void adam_cpu(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v,
              const AdamStep& s) {
  visit_float(p.dtype(), "adam_update", [&](auto tag) { adam<decltype(tag)>(p, g, m, v, s); });
}
void ema_cpu(const Tensor& e, const Tensor& p, double alpha) {
  visit_float(p.dtype(), "ema_update", [&](auto tag) { ema<decltype(tag)>(e, p, alpha); });
}
double squares_cpu(const Tensor& x) {
  return visit_float(x.dtype(), "sum_squares", [&](auto tag) { return squares<decltype(tag)>(x); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(adam_update_kernel, kCpu, adam_cpu);
REALMT_REGISTER_KERNEL(ema_update_kernel, kCpu, ema_cpu);
REALMT_REGISTER_KERNEL(sum_squares_kernel, kCpu, squares_cpu);

}  // namespace realmt::ops
