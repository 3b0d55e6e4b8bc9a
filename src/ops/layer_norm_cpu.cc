// CPU layer norm: rows over threads; per row vectorised passes over the D entries.
// Row statistics and the dgamma/dbeta reductions accumulate in double for f32 inputs too:
// it costs nothing next to the memory traffic and keeps sums over ~1e4 rows accurate.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "ops/layer_norm.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
void forward_rows(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps,
                  LayerNormResult& out) {
  const T* px = x.data<T>();
  const T* pg = gamma.data<T>();
  const T* pb = beta.data<T>();
  T* py = out.y.data<T>();
  T* pmean = out.mean.data<T>();
  T* prstd = out.rstd.data<T>();
  const int64_t d = x.dim(-1), rows = x.numel() / d;
  parallel_for(rows, 5 * d, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* xr = px + r * d;
      T* yr = py + r * d;
      double sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < d; ++j) sum += xr[j];
      const double mean = sum / static_cast<double>(d);
      // Two passes (mean, then the mean of squared deviations) rather than E[x^2] - E[x]^2,
      // which cancels catastrophically when |mean| >> std; the row is in cache for the second.
      double sq = 0;
#pragma omp simd reduction(+ : sq)
      for (int64_t j = 0; j < d; ++j) {
        const double c = static_cast<double>(xr[j]) - mean;
        sq += c * c;
      }
      const T rs = static_cast<T>(1.0 / std::sqrt(sq / static_cast<double>(d) + eps));
      // The mean rounded to f32 is off by up to half an ulp of |mean|, which is large next to
      // the std when |mean| >> std. Centering with the rounded mean (exact subtraction for x
      // near it) and then its rounding error keeps x - mean accurate in f32 arithmetic.
      const T m = static_cast<T>(mean);
      const T m_lo = static_cast<T>(mean - static_cast<double>(m));
      pmean[r] = m;
      prstd[r] = rs;
#pragma omp simd
      for (int64_t j = 0; j < d; ++j) yr[j] = ((xr[j] - m) - m_lo) * rs * pg[j] + pb[j];
    }
  });
}

// dx follows from y = xhat * gamma + beta and xhat = (x - mean) * rstd: with g = dy * gamma,
//   d xhat_k / d x_j = rstd (delta_jk - 1/D - xhat_j xhat_k / D),
// (mean contributes -1/D; rstd = (var + eps)^-1/2 contributes -xhat_j xhat_k / D through
// d var / d x_j = 2 (x_j - mean) / D), so
//   dx_j = sum_k g_k d xhat_k / d x_j = rstd (g_j - mean(g) - xhat_j mean(g xhat)).
// dgamma and dbeta sum over rows. Rows are cut into a fixed number of blocks (independent of
// the thread count); each block sums into its own partial row, and the partials are added in
// block order: no races, and the same bits on any number of threads.
template <typename T>
void backward_rows(const Tensor& dy, const Tensor& x, const Tensor& gamma, const Tensor& mean,
                   const Tensor& rstd, LayerNormGrads& grads) {
  const T* pdy = dy.data<T>();
  const T* px = x.data<T>();
  const T* pg = gamma.data<T>();
  const T* pmean = mean.data<T>();
  const T* prstd = rstd.data<T>();
  T* pdx = grads.dx.data<T>();
  const int64_t d = x.dim(-1), rows = x.numel() / d;
  constexpr int64_t kBlocks = 64;
  const int64_t blocks = std::min(rows, kBlocks);
  // partial[b] = [dgamma | dbeta] of block b.
  std::vector<double> partial(static_cast<size_t>(blocks * 2 * d), 0.0);
  const int64_t rows_per_block = (rows + blocks - 1) / blocks;
  parallel_for(blocks, rows_per_block * 8 * d, [&](int64_t b_lo, int64_t b_hi) {
    for (int64_t b = b_lo; b < b_hi; ++b) {
      double* dgamma = partial.data() + b * 2 * d;
      double* dbeta = dgamma + d;
      for (int64_t r = rows * b / blocks; r < rows * (b + 1) / blocks; ++r) {
        const T* xr = px + r * d;
        const T* gr = pdy + r * d;
        T* dxr = pdx + r * d;
        const T m = pmean[r], rs = prstd[r];
        double sum_g = 0, sum_gx = 0;
#pragma omp simd reduction(+ : sum_g, sum_gx)
        for (int64_t j = 0; j < d; ++j) {
          const T xhat = (xr[j] - m) * rs;
          const T g = gr[j] * pg[j];
          sum_g += g;
          sum_gx += static_cast<double>(g) * xhat;
          dgamma[j] += static_cast<double>(gr[j]) * xhat;
          dbeta[j] += gr[j];
        }
        const T mean_g = static_cast<T>(sum_g / static_cast<double>(d));
        const T mean_gx = static_cast<T>(sum_gx / static_cast<double>(d));
#pragma omp simd
        for (int64_t j = 0; j < d; ++j) {
          const T xhat = (xr[j] - m) * rs;
          dxr[j] = rs * (gr[j] * pg[j] - mean_g - xhat * mean_gx);
        }
      }
    }
  });
  T* pdgamma = grads.dgamma.data<T>();
  T* pdbeta = grads.dbeta.data<T>();
  parallel_for(d, 2 * blocks, [&](int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; ++j) {
      double sg = 0, sb = 0;
      for (int64_t b = 0; b < blocks; ++b) {
        sg += partial[b * 2 * d + j];
        sb += partial[b * 2 * d + d + j];
      }
      pdgamma[j] += static_cast<T>(sg);
      pdbeta[j] += static_cast<T>(sb);
    }
  });
}

void layer_norm_cpu(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps,
                    LayerNormResult& out) {
  visit_float(x.dtype(), "layer_norm",
              [&](auto tag) { forward_rows<decltype(tag)>(x, gamma, beta, eps, out); });
}

void layer_norm_backward_cpu(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                             const Tensor& mean, const Tensor& rstd, LayerNormGrads& grads) {
  visit_float(x.dtype(), "layer_norm backward",
              [&](auto tag) { backward_rows<decltype(tag)>(dy, x, gamma, mean, rstd, grads); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(layer_norm_kernel, kCpu, layer_norm_cpu);
REALMT_REGISTER_KERNEL(layer_norm_backward_kernel, kCpu, layer_norm_backward_cpu);

}  // namespace realmt::ops
