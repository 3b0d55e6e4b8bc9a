// CPU loss rows of the fused output projection: rows over threads; per row a max pass, a fused
// exp/sum pass and, with gradients, one pass writing P - Q over the logits in place (the row is
// still in cache). Sums accumulate in the element type inside the vectorised loops (the SIMD
// lanes are separate partial sums), as ops/cross_entropy_cpu.cc does.
#include <cmath>
#include <cstring>
#include <limits>

#include "core/fast_math.h"
#include "core/parallel.h"
#include "ops/linear_cross_entropy.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
T exp_t(T x) {
  if constexpr (std::is_same_v<T, float>)
    return fast_exp(x);
  else
    return std::exp(x);
}

template <typename T>
void rows_kernel(Tensor& logits, const Tensor& targets, const LinearCrossEntropyOptions& o,
                 Tensor& loss) {
  T* px = logits.data<T>();
  const int32_t* pt = targets.data<int32_t>();
  using L = std::conditional_t<std::is_same_v<T, double>, double, float>;
  L* ploss = loss.data<L>();
  const int64_t rows = targets.numel(), v = logits.dim(-1);
  const double eps = o.label_smoothing;
  const T uniform = static_cast<T>(eps / static_cast<double>(v));
  const T on_target = static_cast<T>(1.0 - eps);
  parallel_for(rows, o.with_grad ? 5 * v : 3 * v, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      T* x = px + r * v;
      const int32_t t = pt[r];
      if (t == o.ignore_index) {
        ploss[r] = L(0);
        if (o.with_grad) std::memset(x, 0, sizeof(T) * static_cast<size_t>(v));
        continue;
      }
      T m = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : m)
      for (int64_t j = 0; j < v; ++j) m = x[j] > m ? x[j] : m;
      const double zt = static_cast<double>(x[t] - m);  // read before the row is overwritten
      T s = 0, zsum = 0;
      if (o.with_grad) {
        // exp(z_j) stays in the row for the gradient pass: one exp per logit.
#pragma omp simd reduction(+ : s, zsum)
        for (int64_t j = 0; j < v; ++j) {
          const T z = x[j] - m;
          x[j] = exp_t<T>(z);
          s += x[j];
          zsum += z;
        }
      } else {
#pragma omp simd reduction(+ : s, zsum)
        for (int64_t j = 0; j < v; ++j) {
          const T z = x[j] - m;
          s += exp_t<T>(z);
          zsum += z;
        }
      }
      const double log_s = std::log(static_cast<double>(s));
      // loss = log s - (1 - eps) z_t - (eps / V) sum_j z_j, in z = x - max (no cancellation).
      ploss[r] = static_cast<L>(log_s - (1.0 - eps) * zt -
                                eps * static_cast<double>(zsum) / static_cast<double>(v));
      if (!o.with_grad) continue;
      const T inv = static_cast<T>(1.0 / static_cast<double>(s));
#pragma omp simd
      for (int64_t j = 0; j < v; ++j) x[j] = x[j] * inv - uniform;
      x[t] -= on_target;
    }
  });
}

void rows_cpu(Tensor& logits, const Tensor& targets, const LinearCrossEntropyOptions& o,
              Tensor& loss) {
  visit_float(logits.dtype(), "linear_cross_entropy",
              [&](auto tag) { rows_kernel<decltype(tag)>(logits, targets, o, loss); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(cross_entropy_rows_kernel, kCpu, rows_cpu);

}  // namespace realmt::ops
