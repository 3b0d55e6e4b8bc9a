// CPU cross-entropy: rows over threads; per row a max pass and one fused exp/sum pass (forward),
// one pass (backward). f32 uses fast_exp so the exp loop vectorises; the sums over the V entries
// of a row run in the element type inside that loop (each SIMD lane a partial sum, ~V/8 terms a
// lane for f32), and the log and the loss formula in double.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/fast_math.h"
#include "core/parallel.h"
#include "ops/cross_entropy.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

// fast_exp gives 0 for x < -87 (-inf included): masked logits contribute nothing.
template <typename T>
T exp_t(T x) {
  if constexpr (std::is_same_v<T, float>)
    return fast_exp(x);
  else
    return std::exp(x);
}

template <typename T>
void forward_rows(const Tensor& logits, const Tensor& targets, const CrossEntropyOptions& o,
                  Tensor& loss, Tensor& lse) {
  const T* px = logits.data<T>();
  const int32_t* pt = targets.data<int32_t>();
  T* ploss = loss.data<T>();
  T* plse = lse.data<T>();
  const int64_t rows = targets.numel(), v = logits.dim(-1);
  const double eps = o.label_smoothing;
  parallel_for(rows, 3 * v, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* x = px + r * v;
      T m = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : m)
      for (int64_t j = 0; j < v; ++j) m = x[j] > m ? x[j] : m;
      // With z = x - max: sum exp(z) lies in [1, V], so it neither overflows nor underflows.
      // The sums run in T inside the vectorised loop (the SIMD lanes are separate partial sums,
      // so a 32k row adds ~4k terms a lane); a double accumulator here stopped the vectorisation.
      T s = 0, zsum = 0;
      if (eps > 0) {
#pragma omp simd reduction(+ : s, zsum)
        for (int64_t j = 0; j < v; ++j) {
          const T z = x[j] - m;
          s += exp_t<T>(z);
          zsum += z;
        }
      } else {
#pragma omp simd reduction(+ : s)
        for (int64_t j = 0; j < v; ++j) s += exp_t<T>(x[j] - m);
      }
      const double log_s = std::log(static_cast<double>(s));
      plse[r] = static_cast<T>(m + log_s);
      const int32_t t = pt[r];
      if (t == o.ignore_index) {
        ploss[r] = T(0);
        continue;
      }
      // sum_j q_j = 1, so loss = sum_j q_j (lse - x_j) = sum_j q_j (log s - z_j)
      //                      = log s - (1 - eps) z_t - (eps / V) sum_j z_j.
      // Written in z rather than as lse - (1-eps) x_t - ..., it has no cancellation between
      // a large lse and a large target logit.
      const double zt = static_cast<double>(x[t] - m);
      const double smooth =
          eps > 0 ? eps * static_cast<double>(zsum) / static_cast<double>(v) : 0.0;
      ploss[r] = static_cast<T>(log_s - (1.0 - eps) * zt - smooth);
    }
  });
}

// d loss_i / d x_ij = p_ij - q_ij (softmax minus the target distribution), times dloss_i.
template <typename T>
void backward_rows(const Tensor& dloss, const Tensor& logits, const Tensor& targets,
                   const Tensor& lse, const CrossEntropyOptions& o, Tensor& dlogits) {
  const T* pg = dloss.data<T>();
  const T* px = logits.data<T>();
  const int32_t* pt = targets.data<int32_t>();
  const T* plse = lse.data<T>();
  T* pd = dlogits.data<T>();
  const int64_t rows = targets.numel(), v = logits.dim(-1);
  const T uniform = static_cast<T>(o.label_smoothing / static_cast<double>(v));
  const T on_target = static_cast<T>(1.0 - o.label_smoothing);
  parallel_for(rows, 2 * v, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      T* d = pd + r * v;
      const int32_t t = pt[r];
      if (t == o.ignore_index) {
        std::memset(d, 0, static_cast<size_t>(v) * sizeof(T));
        continue;
      }
      const T* x = px + r * v;
      const T g = pg[r], l = plse[r];
#pragma omp simd
      for (int64_t j = 0; j < v; ++j) d[j] = g * (exp_t<T>(x[j] - l) - uniform);
      d[t] -= g * on_target;
    }
  });
}

void cross_entropy_cpu(const Tensor& logits, const Tensor& targets, const CrossEntropyOptions& o,
                       Tensor& loss, Tensor& lse) {
  visit_float(logits.dtype(), "cross_entropy",
              [&](auto tag) { forward_rows<decltype(tag)>(logits, targets, o, loss, lse); });
}

void cross_entropy_backward_cpu(const Tensor& dloss, const Tensor& logits, const Tensor& targets,
                                const Tensor& lse, const CrossEntropyOptions& o, Tensor& dlogits) {
  visit_float(logits.dtype(), "cross_entropy backward", [&](auto tag) {
    backward_rows<decltype(tag)>(dloss, logits, targets, lse, o, dlogits);
  });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(cross_entropy_kernel, kCpu, cross_entropy_cpu);
REALMT_REGISTER_KERNEL(cross_entropy_backward_kernel, kCpu, cross_entropy_backward_cpu);

}  // namespace realmt::ops
