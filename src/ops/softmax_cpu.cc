// CPU softmax: rows over threads; per row three vectorised passes (max, exp and sum, scale).
#include <cmath>
#include <limits>

#include "core/fast_math.h"
#include "core/parallel.h"
#include "ops/softmax.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
T exp_t(T x) {
  if constexpr (std::is_same_v<T, float>)
    return fast_exp_masked(x);  // exact 0 at -inf
  else
    return std::exp(x);
}

template <typename T, bool kLog>
void forward_rows(const Tensor& x, const Tensor& mask, const RowBroadcast& rb, Tensor& y) {
  const T* px = x.data<T>();
  const T* pm = mask.defined() ? mask.data<T>() : nullptr;
  T* py = y.data<T>();
  const int64_t n = rb.cols;
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  parallel_for(rb.rows, 4 * n, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* xr = px + r * n;
      T* yr = py + r * n;
      // The mask is added first; y holds x + mask for the passes below.
      if (pm) {
        const T* mr = pm + rb.mask_row(r) * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) yr[j] = xr[j] + mr[j];
      } else {
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) yr[j] = xr[j];
      }
      T mx = kNegInf;
#pragma omp simd reduction(max : mx)
      for (int64_t j = 0; j < n; ++j) mx = yr[j] > mx ? yr[j] : mx;
      if (mx == kNegInf) {  // every entry masked
        for (int64_t j = 0; j < n; ++j) yr[j] = kLog ? kNegInf : T(0);
        continue;
      }
      T sum = 0;
      if constexpr (kLog) {
#pragma omp simd reduction(+ : sum)
        for (int64_t j = 0; j < n; ++j) sum += exp_t<T>(yr[j] - mx);
        // (z - max) - log(sum) rather than z - (max + log(sum)): the first difference is exact
        // for the large entries, so large logits keep their small log-probabilities accurate.
        const T log_sum = std::log(sum);
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) yr[j] = (yr[j] - mx) - log_sum;
      } else {
#pragma omp simd reduction(+ : sum)
        for (int64_t j = 0; j < n; ++j) {
          yr[j] = exp_t<T>(yr[j] - mx);
          sum += yr[j];
        }
        const T inv = T(1) / sum;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) yr[j] *= inv;
      }
    }
  });
}

template <typename T, bool kLog>
void backward_rows(const Tensor& dy, const Tensor& y, Tensor& dx) {
  const T* pdy = dy.data<T>();
  const T* py = y.data<T>();
  T* pdx = dx.data<T>();
  const int64_t n = y.dim(-1), rows = y.numel() / n;
  parallel_for(rows, 3 * n, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* g = pdy + r * n;
      const T* yr = py + r * n;
      T* d = pdx + r * n;
      T dot = 0;
      if constexpr (kLog) {
#pragma omp simd reduction(+ : dot)
        for (int64_t j = 0; j < n; ++j) dot += g[j];
        // exp(-inf) = 0 keeps masked entries' gradient at dy.
        for (int64_t j = 0; j < n; ++j) d[j] = g[j] - exp_t<T>(yr[j]) * dot;
      } else {
#pragma omp simd reduction(+ : dot)
        for (int64_t j = 0; j < n; ++j) dot += g[j] * yr[j];
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) d[j] = yr[j] * (g[j] - dot);
      }
    }
  });
}

template <bool kLog>
void softmax_cpu(const Tensor& x, const Tensor& mask, const RowBroadcast& rb, Tensor& y) {
  visit_float(x.dtype(), "softmax",
              [&](auto tag) { forward_rows<decltype(tag), kLog>(x, mask, rb, y); });
}
template <bool kLog>
void softmax_backward_cpu(const Tensor& dy, const Tensor& y, Tensor& dx) {
  visit_float(y.dtype(), "softmax backward",
              [&](auto tag) { backward_rows<decltype(tag), kLog>(dy, y, dx); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(softmax_kernel, kCpu, softmax_cpu<false>);
REALMT_REGISTER_KERNEL(log_softmax_kernel, kCpu, softmax_cpu<true>);
REALMT_REGISTER_KERNEL(softmax_backward_kernel, kCpu, softmax_backward_cpu<false>);
REALMT_REGISTER_KERNEL(log_softmax_backward_kernel, kCpu, softmax_backward_cpu<true>);

}  // namespace realmt::ops
