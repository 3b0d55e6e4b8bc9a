// CUDA sub-layer epilogue: a warp per row up to 1024 features, a block per row beyond (as
// ops/layer_norm_cuda.cu). Forward: one pass builds z (bias, dropout from the shared Philox
// mapping, omega) and its sum, one takes the squared deviations, one writes n; statistics in
// double, from z as stored (so the backward pass, which reads z, sees the same xhat). Each
// thread walks the row in the Philox blocks of its dropout stream in every pass, so it reads
// back only the z it wrote itself. Backward: a row kernel for dx, dy and the row means of g and
// g xhat (kept in a scratch [R, 2]), then the four column sums (dgamma, dbeta, domega, dbias)
// by the deterministic two-stage reduction of backend/cuda/column_reduce.cuh.
#include "backend/cuda/column_reduce.cuh"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/dropout_stream.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/dropout.h"
#include "ops/residual_norm.h"

namespace realmt::ops {
namespace {

using cuda::RowGroup;
using cuda::SumOp;

template <typename T>
struct ForwardArgs {
  const T *x, *y, *omega, *bias, *gamma, *beta;  // omega, bias: nullptr when absent
  T *z, *n, *mean, *rstd;
};

template <typename T, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    forward_rows(ForwardArgs<T> a, long long rows, long long d, double eps, cuda::DropoutStream s,
                 cuda::compute_t<T> keep_scale) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ double smem[cuda::kWarpSize];
  cuda::DropoutStream same_blocks = s;  // the same walk without drawing numbers
  same_blocks.active = false;
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const unsigned long long e0 = r * d, e1 = e0 + d;
    const unsigned long long blocks = cuda::dropout_blocks(s, e0, e1);
    double sum = 0;
    for (unsigned long long b = G::lane(); b < blocks; b += G::size())
      cuda::dropout_block(s, e0, e1, b, [&](unsigned long long e, bool keep) {
        const long long j = e - e0;
        C branch = cuda::load(a.y[e]) + (a.bias ? cuda::load(a.bias[j]) : C(0));
        if (s.active) branch = keep ? branch * keep_scale : C(0);
        const T z =
            cuda::store<T>(cuda::load(a.x[e]) * (a.omega ? cuda::load(a.omega[j]) : C(1)) + branch);
        a.z[e] = z;
        sum += static_cast<double>(cuda::load(z));
      });
    const double mean = G::template reduce<SumOp>(sum, smem) / static_cast<double>(d);
    double sq = 0;
    for (unsigned long long b = G::lane(); b < blocks; b += G::size())
      cuda::dropout_block(same_blocks, e0, e1, b, [&](unsigned long long e, bool) {
        const double c = static_cast<double>(cuda::load(a.z[e])) - mean;
        sq += c * c;
      });
    sq = G::template reduce<SumOp>(sq, smem);
    const C rs = static_cast<C>(1.0 / ::sqrt(sq / static_cast<double>(d) + eps));
    const C m = static_cast<C>(mean);
    if (G::lane() == 0) {
      a.mean[r] = cuda::store<T>(m);
      a.rstd[r] = cuda::store<T>(rs);
    }
    for (unsigned long long b = G::lane(); b < blocks; b += G::size())
      cuda::dropout_block(same_blocks, e0, e1, b, [&](unsigned long long e, bool) {
        const long long j = e - e0;
        a.n[e] = cuda::store<T>((cuda::load(a.z[e]) - m) * rs * cuda::load(a.gamma[j]) +
                                cuda::load(a.beta[j]));
      });
  }
}

// dz_extra, omega: nullptr when absent.
template <typename T>
struct BackwardArgs {
  const T *dn, *dz_extra, *x, *z, *mean, *rstd, *omega, *gamma;
  T *dx, *dy;
  cuda::compute_t<T>* stats;  // [R, 2]: mean_D(g), mean_D(g xhat)
};

// dz = rstd (g - mean(g) - xhat mean(g xhat)) + dz', g = dn gamma (derivation in
// ops/residual_norm.h).
template <typename T>
__device__ __forceinline__ cuda::compute_t<T> dz_of(const BackwardArgs<T>& a, long long e,
                                                    long long j, cuda::compute_t<T> m,
                                                    cuda::compute_t<T> rs, cuda::compute_t<T> mg,
                                                    cuda::compute_t<T> mgx) {
  using C = cuda::compute_t<T>;
  const C xhat = (cuda::load(a.z[e]) - m) * rs;
  const C g = cuda::load(a.dn[e]) * cuda::load(a.gamma[j]);
  return rs * (g - mg - xhat * mgx) + (a.dz_extra ? cuda::load(a.dz_extra[e]) : C(0));
}

template <typename T, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    backward_rows(BackwardArgs<T> a, long long rows, long long d, cuda::DropoutStream s,
                  cuda::compute_t<T> keep_scale) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ double smem[cuda::kWarpSize];
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const long long e0 = r * d;
    const C m = cuda::load(a.mean[r]), rs = cuda::load(a.rstd[r]);
    double sum_g = 0, sum_gx = 0;
    for (long long j = G::lane(); j < d; j += G::size()) {
      const C g = cuda::load(a.dn[e0 + j]) * cuda::load(a.gamma[j]);
      const C xhat = (cuda::load(a.z[e0 + j]) - m) * rs;
      sum_g += g;
      sum_gx += static_cast<double>(g) * xhat;
    }
    sum_g = G::template reduce<SumOp>(sum_g, smem);
    sum_gx = G::template reduce<SumOp>(sum_gx, smem);
    const C mg = static_cast<C>(sum_g / static_cast<double>(d));
    const C mgx = static_cast<C>(sum_gx / static_cast<double>(d));
    if (G::lane() == 0) {
      a.stats[2 * r] = mg;
      a.stats[2 * r + 1] = mgx;
    }
    const unsigned long long u0 = e0, u1 = e0 + d;
    const unsigned long long blocks = cuda::dropout_blocks(s, u0, u1);
    for (unsigned long long b = G::lane(); b < blocks; b += G::size())
      cuda::dropout_block(s, u0, u1, b, [&](unsigned long long e, bool keep) {
        const long long j = e - e0;
        const C dz = dz_of(a, e, j, m, rs, mg, mgx);
        a.dx[e] = cuda::store<T>(a.omega ? dz * cuda::load(a.omega[j]) : dz);
        a.dy[e] = cuda::store<T>(s.active ? (keep ? dz * keep_scale : C(0)) : dz);
      });
  }
}

// Row r's contributions to dgamma (dn xhat), dbeta (dn), domega (dz x) and dbias (dy).
template <typename T>
struct ParamGrads {
  BackwardArgs<T> a;
  long long d;
  bool want_omega;
  __device__ void operator()(long long r, long long j, double (&acc)[4]) const {
    using C = cuda::compute_t<T>;
    const long long e = r * d + j;
    const C m = cuda::load(a.mean[r]), rs = cuda::load(a.rstd[r]);
    const C dn = cuda::load(a.dn[e]);
    acc[0] += static_cast<double>(dn * ((cuda::load(a.z[e]) - m) * rs));
    acc[1] += static_cast<double>(dn);
    if (want_omega)
      acc[2] += static_cast<double>(dz_of(a, e, j, m, rs, a.stats[2 * r], a.stats[2 * r + 1]) *
                                    cuda::load(a.x[e]));
    acc[3] += static_cast<double>(cuda::load(a.dy[e]));
  }
};

cuda::DropoutStream stream_of(const ResidualNormOptions& o) {
  return {o.seed, o.offset, dropout_threshold(o.dropout), o.dropout > 0};
}

template <typename T>
const T* ptr_or_null(const Tensor& t) {
  return t.defined() ? cuda::device_ptr<T>(t) : nullptr;
}

void residual_norm_cuda(const Tensor& x, const Tensor& y, const Tensor& omega, const Tensor& bias,
                        const Tensor& gamma, const Tensor& beta, const ResidualNormOptions& o,
                        ResidualNormResult& out) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long d = x.dim(-1), rows = x.numel() / d;
  const cuda::RowLaunch l = cuda::row_launch(rows, d);
  const cuda::DropoutStream s = stream_of(o);
  cuda::visit_float(x.dtype(), "residual_norm", [&](auto tag) {
    using T = decltype(tag);
    auto p = [](const Tensor& t) { return cuda::device_ptr<T>(t); };
    const ForwardArgs<T> a{
        p(x),     p(y),     ptr_or_null<T>(omega), ptr_or_null<T>(bias), p(gamma), p(beta),
        p(out.z), p(out.n), p(out.mean),           p(out.rstd)};
    // 1 / (1 - p) in double, rounded once to the compute type (as ops::dropout).
    const auto keep_scale = static_cast<cuda::compute_t<T>>(1.0 / (1.0 - o.dropout));
    if (l.warp)
      forward_rows<T, true><<<l.grid, l.block, 0, stream>>>(a, rows, d, o.eps, s, keep_scale);
    else
      forward_rows<T, false><<<l.grid, l.block, 0, stream>>>(a, rows, d, o.eps, s, keep_scale);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

void residual_norm_backward_cuda(const Tensor& dn, const Tensor& dz, const Tensor& x,
                                 const ResidualNormResult& fwd, const Tensor& omega,
                                 const Tensor& gamma, const ResidualNormOptions& o,
                                 ResidualNormGrads& out) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long d = x.dim(-1), rows = x.numel() / d;
  const cuda::RowLaunch l = cuda::row_launch(rows, d);
  const cuda::DropoutStream s = stream_of(o);
  cuda::visit_float(x.dtype(), "residual_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    using C = cuda::compute_t<T>;
    auto p = [](const Tensor& t) { return cuda::device_ptr<T>(t); };
    Tensor stats =
        Tensor::empty({rows, 2}, std::is_same_v<C, double> ? DType::kF64 : DType::kF32, x.device());
    const BackwardArgs<T> a{p(dn),
                            ptr_or_null<T>(dz),
                            p(x),
                            p(fwd.z),
                            p(fwd.mean),
                            p(fwd.rstd),
                            ptr_or_null<T>(omega),
                            p(gamma),
                            p(out.dx),
                            p(out.dy),
                            static_cast<C*>(stats.raw())};
    const auto keep_scale = static_cast<C>(1.0 / (1.0 - o.dropout));
    if (l.warp)
      backward_rows<T, true><<<l.grid, l.block, 0, stream>>>(a, rows, d, s, keep_scale);
    else
      backward_rows<T, false><<<l.grid, l.block, 0, stream>>>(a, rows, d, s, keep_scale);
    REALMT_CUDA_CHECK_LAUNCH();
    const cuda::ColumnOutputs<T, 4> outs{
        {p(out.dgamma), p(out.dbeta), out.domega.defined() ? p(out.domega) : nullptr,
         out.dbias.defined() ? p(out.dbias) : nullptr},
        false};
    cuda::column_sums<T, 4>(ParamGrads<T>{a, d, out.domega.defined()}, rows, d, outs, x.device(),
                            stream);
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(residual_norm_kernel, kCuda, residual_norm_cuda);
REALMT_REGISTER_KERNEL(residual_norm_backward_kernel, kCuda, residual_norm_backward_cuda);

}  // namespace realmt::ops
