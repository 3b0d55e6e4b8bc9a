// CPU sub-layer epilogue. Forward: threads take rows; per row one pass builds z (bias, dropout
// flags from the shared Philox mapping, omega), two vectorised passes take the statistics
// (in double, as ops/layer_norm does: the mean of squared deviations rather than E[z^2] - E[z]^2),
// one writes n. Backward: rows in blocks of kBlock; each block writes its partial column sums
// (dgamma, dbeta, domega, dbias) to its own row of a scratch tensor, and the partials are added
// in block order afterwards, so the sums do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "ops/dropout_mask_cpu.h"
#include "ops/residual_norm.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

constexpr int64_t kBlock = 32;

template <typename T>
const T* ptr_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

template <typename T>
void forward(const Tensor& x, const Tensor& y, const Tensor& omega, const Tensor& bias,
             const Tensor& gamma, const Tensor& beta, const ResidualNormOptions& o,
             ResidualNormResult& out) {
  const int64_t d = x.dim(-1), rows = x.numel() / d;
  const T* px = x.data<T>();
  const T* py = y.data<T>();
  const T* pw = ptr_or_null<T>(omega);
  const T* pb = ptr_or_null<T>(bias);
  const T* pg = gamma.data<T>();
  const T* pbeta = beta.data<T>();
  T* pz = out.z.data<T>();
  T* pn = out.n.data<T>();
  T* pmean = out.mean.data<T>();
  T* prstd = out.rstd.data<T>();
  const bool drop = o.dropout > 0;
  const uint32_t threshold = dropout_threshold(o.dropout);
  const T keep_scale = static_cast<T>(1.0 / (1.0 - o.dropout));
  parallel_for(rows, 8 * d, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<uint8_t> keep_buf;
    keep_buf.resize(d);
    uint8_t* keep = keep_buf.data();
    for (int64_t r = lo; r < hi; ++r) {
      const T* xr = px + r * d;
      const T* yr = py + r * d;
      T* zr = pz + r * d;
      if (drop)
        dropout_keep_flags(o.seed, o.offset + static_cast<uint64_t>(r * d), d, threshold, keep);
#pragma omp simd
      for (int64_t j = 0; j < d; ++j) {
        T branch = yr[j] + (pb ? pb[j] : T(0));
        if (drop) branch = keep[j] ? branch * keep_scale : T(0);
        zr[j] = xr[j] * (pw ? pw[j] : T(1)) + branch;
      }
      double sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < d; ++j) sum += zr[j];
      const double mean = sum / static_cast<double>(d);
      double sq = 0;
#pragma omp simd reduction(+ : sq)
      for (int64_t j = 0; j < d; ++j) {
        const double c = static_cast<double>(zr[j]) - mean;
        sq += c * c;
      }
      const T rs = static_cast<T>(1.0 / std::sqrt(sq / static_cast<double>(d) + o.eps));
      const T m = static_cast<T>(mean);
      pmean[r] = m;
      prstd[r] = rs;
      T* nr = pn + r * d;
#pragma omp simd
      for (int64_t j = 0; j < d; ++j) nr[j] = (zr[j] - m) * rs * pg[j] + pbeta[j];
    }
  });
}

template <typename T>
void backward(const Tensor& dn_t, const Tensor& dz_t, const Tensor& x,
              const ResidualNormResult& fwd, const Tensor& omega, const Tensor& gamma,
              const ResidualNormOptions& o, ResidualNormGrads& out) {
  const int64_t d = x.dim(-1), rows = x.numel() / d;
  const int64_t blocks = (rows + kBlock - 1) / kBlock;
  const T* dn = dn_t.data<T>();
  const T* dze = ptr_or_null<T>(dz_t);
  const T* px = x.data<T>();
  const T* pz = fwd.z.data<T>();
  const T* pmean = fwd.mean.data<T>();
  const T* prstd = fwd.rstd.data<T>();
  const T* pw = ptr_or_null<T>(omega);
  const T* pg = gamma.data<T>();
  T* dx = out.dx.data<T>();
  T* dy = out.dy.data<T>();
  const bool drop = o.dropout > 0;
  const uint32_t threshold = dropout_threshold(o.dropout);
  const T keep_scale = static_cast<T>(1.0 / (1.0 - o.dropout));
  // Partial sums of each block: [blocks, 4, D] = dgamma, dbeta, domega, dbias.
  Tensor partial = Tensor::empty({blocks, 4, d}, x.dtype(), x.device());
  T* pp = partial.data<T>();
  parallel_for(blocks, kBlock * 12 * d, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<uint8_t> keep_buf;
    keep_buf.resize(d);
    uint8_t* keep = keep_buf.data();
    for (int64_t blk = lo; blk < hi; ++blk) {
      T* sg = pp + blk * 4 * d;
      T* sb = sg + d;
      T* sw = sb + d;
      T* sbias = sw + d;
      std::fill(sg, sg + 4 * d, T(0));
      const int64_t r_end = std::min(rows, (blk + 1) * kBlock);
      for (int64_t r = blk * kBlock; r < r_end; ++r) {
        const T* dnr = dn + r * d;
        const T* zr = pz + r * d;
        const T* xr = px + r * d;
        const T m = pmean[r], rs = prstd[r];
        T mg = 0, mgx = 0;
#pragma omp simd reduction(+ : mg, mgx)
        for (int64_t j = 0; j < d; ++j) {
          const T g = dnr[j] * pg[j];
          mg += g;
          mgx += g * ((zr[j] - m) * rs);
        }
        mg /= static_cast<T>(d);
        mgx /= static_cast<T>(d);
        if (drop)
          dropout_keep_flags(o.seed, o.offset + static_cast<uint64_t>(r * d), d, threshold, keep);
        T* dxr = dx + r * d;
        T* dyr = dy + r * d;
        const T* dzer = dze ? dze + r * d : nullptr;
#pragma omp simd
        for (int64_t j = 0; j < d; ++j) {
          const T xhat = (zr[j] - m) * rs;
          const T dz = rs * (dnr[j] * pg[j] - mg - xhat * mgx) + (dzer ? dzer[j] : T(0));
          dxr[j] = pw ? dz * pw[j] : dz;
          const T dyj = drop ? (keep[j] ? dz * keep_scale : T(0)) : dz;
          dyr[j] = dyj;
          sg[j] += dnr[j] * xhat;
          sb[j] += dnr[j];
          sw[j] += dz * xr[j];
          sbias[j] += dyj;
        }
      }
    }
  });
  // Block partials added in block order (columns over threads).
  T* outs[4] = {out.dgamma.data<T>(), out.dbeta.data<T>(),
                out.domega.defined() ? out.domega.data<T>() : nullptr,
                out.dbias.defined() ? out.dbias.data<T>() : nullptr};
  parallel_for(d, 4 * blocks, [&](int64_t lo, int64_t hi) {
    for (int k = 0; k < 4; ++k) {
      if (!outs[k]) continue;
      for (int64_t j = lo; j < hi; ++j) {
        double acc = 0;
        for (int64_t blk = 0; blk < blocks; ++blk) acc += pp[(blk * 4 + k) * d + j];
        outs[k][j] = static_cast<T>(acc);
      }
    }
  });
}

void residual_norm_cpu(const Tensor& x, const Tensor& y, const Tensor& omega, const Tensor& bias,
                       const Tensor& gamma, const Tensor& beta, const ResidualNormOptions& o,
                       ResidualNormResult& out) {
  visit_float(x.dtype(), "residual_norm",
              [&](auto tag) { forward<decltype(tag)>(x, y, omega, bias, gamma, beta, o, out); });
}

void residual_norm_backward_cpu(const Tensor& dn, const Tensor& dz, const Tensor& x,
                                const ResidualNormResult& fwd, const Tensor& omega,
                                const Tensor& gamma, const ResidualNormOptions& o,
                                ResidualNormGrads& out) {
  visit_float(x.dtype(), "residual_norm_backward",
              [&](auto tag) { backward<decltype(tag)>(dn, dz, x, fwd, omega, gamma, o, out); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(residual_norm_kernel, kCpu, residual_norm_cpu);
REALMT_REGISTER_KERNEL(residual_norm_backward_kernel, kCpu, residual_norm_backward_cpu);

}  // namespace realmt::ops
