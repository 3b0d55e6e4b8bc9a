// CUDA layer norm: a warp per row up to 1024 features, a block per row beyond. As on the
// CPU, row statistics accumulate in double (two passes: mean, then squared deviations), and
// x is centred with the rounded mean and then its rounding error, so rows with
// |mean| >> std stay accurate. The dgamma/dbeta column sums run in two deterministic stages
// (fixed row chunks into double partials, then the partials in chunk order): no atomics, the
// same bits on every run.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/layer_norm.h"

namespace realmt::ops {
namespace {

using cuda::RowGroup;
using cuda::SumOp;

template <typename T, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    ln_forward(const T* x, const T* gamma, const T* beta, double eps, long long rows, long long d,
               T* y, T* mean_out, T* rstd_out) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ double smem[cuda::kWarpSize];
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const T* xr = x + r * d;
    T* yr = y + r * d;
    double sum = 0;
    for (long long j = G::lane(); j < d; j += G::size())
      sum += static_cast<double>(cuda::load(xr[j]));
    const double mean = G::template reduce<SumOp>(sum, smem) / static_cast<double>(d);
    double sq = 0;
    for (long long j = G::lane(); j < d; j += G::size()) {
      const double c = static_cast<double>(cuda::load(xr[j])) - mean;
      sq += c * c;
    }
    sq = G::template reduce<SumOp>(sq, smem);
    const C rs = static_cast<C>(1.0 / ::sqrt(sq / static_cast<double>(d) + eps));
    const C m = static_cast<C>(mean);
    const C m_lo = static_cast<C>(mean - static_cast<double>(m));
    if (G::lane() == 0) {
      mean_out[r] = cuda::store<T>(m);
      rstd_out[r] = cuda::store<T>(rs);
    }
    for (long long j = G::lane(); j < d; j += G::size())
      yr[j] = cuda::store<T>(((cuda::load(xr[j]) - m) - m_lo) * rs * cuda::load(gamma[j]) +
                             cuda::load(beta[j]));
  }
}

// dx_j = rstd (g_j - mean(g) - xhat_j mean(g xhat)), g = dy * gamma (derivation in the CPU file).
template <typename T, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    ln_backward_dx(const T* dy, const T* x, const T* gamma, const T* mean, const T* rstd,
                   long long rows, long long d, T* dx) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ double smem[cuda::kWarpSize];
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const T* xr = x + r * d;
    const T* gr = dy + r * d;
    T* dxr = dx + r * d;
    const C m = cuda::load(mean[r]), rs = cuda::load(rstd[r]);
    double sum_g = 0, sum_gx = 0;
    for (long long j = G::lane(); j < d; j += G::size()) {
      const C xhat = (cuda::load(xr[j]) - m) * rs;
      const C g = cuda::load(gr[j]) * cuda::load(gamma[j]);
      sum_g += g;
      sum_gx += static_cast<double>(g) * xhat;
    }
    sum_g = G::template reduce<SumOp>(sum_g, smem);
    sum_gx = G::template reduce<SumOp>(sum_gx, smem);
    const C mean_g = static_cast<C>(sum_g / static_cast<double>(d));
    const C mean_gx = static_cast<C>(sum_gx / static_cast<double>(d));
    for (long long j = G::lane(); j < d; j += G::size()) {
      const C xhat = (cuda::load(xr[j]) - m) * rs;
      dxr[j] =
          cuda::store<T>(rs * (cuda::load(gr[j]) * cuda::load(gamma[j]) - mean_g - xhat * mean_gx));
    }
  }
}

constexpr int kColumns = 32;  // columns per block (threadIdx.x)
constexpr int kRowLanes = 8;  // rows summed side by side (threadIdx.y)

// Stage 1: block (strip of 32 columns, chunk c of rows) writes partial[c][j] of
// sum_r dy_rj xhat_rj (dgamma) and sum_r dy_rj (dbeta).
template <typename T>
__global__ void ln_backward_partials(const T* dy, const T* x, const T* mean, const T* rstd,
                                     long long rows, long long d, long long chunk_rows,
                                     double* partial_gamma, double* partial_beta) {
  using C = cuda::compute_t<T>;
  __shared__ double sg[kRowLanes][kColumns + 1], sb[kRowLanes][kColumns + 1];
  const long long j = blockIdx.x * (long long)kColumns + threadIdx.x;
  const long long chunk = blockIdx.y;
  const long long r0 = chunk * chunk_rows;
  const long long r1 = r0 + chunk_rows < rows ? r0 + chunk_rows : rows;
  double acc_g = 0, acc_b = 0;
  if (j < d) {
    for (long long r = r0 + threadIdx.y; r < r1; r += kRowLanes) {
      const C g = cuda::load(dy[r * d + j]);
      const C xhat = (cuda::load(x[r * d + j]) - cuda::load(mean[r])) * cuda::load(rstd[r]);
      acc_g += static_cast<double>(g) * xhat;
      acc_b += g;
    }
  }
  sg[threadIdx.y][threadIdx.x] = acc_g;
  sb[threadIdx.y][threadIdx.x] = acc_b;
  __syncthreads();
  if (threadIdx.y == 0 && j < d) {
    for (int k = 1; k < kRowLanes; ++k) {  // fixed order: deterministic
      acc_g += sg[k][threadIdx.x];
      acc_b += sb[k][threadIdx.x];
    }
    partial_gamma[chunk * d + j] = acc_g;
    partial_beta[chunk * d + j] = acc_b;
  }
}

// Stage 2: dgamma_j += sum_c partial[c][j], in chunk order.
template <typename T>
__global__ void ln_backward_columns(const double* partial_gamma, const double* partial_beta,
                                    long long chunks, long long d, T* dgamma, T* dbeta) {
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < d;
       j += (long long)gridDim.x * blockDim.x) {
    double g = 0, b = 0;
    for (long long c = 0; c < chunks; ++c) {
      g += partial_gamma[c * d + j];
      b += partial_beta[c * d + j];
    }
    dgamma[j] = cuda::store<T>(static_cast<cuda::compute_t<T>>(cuda::load(dgamma[j]) + g));
    dbeta[j] = cuda::store<T>(static_cast<cuda::compute_t<T>>(cuda::load(dbeta[j]) + b));
  }
}

void layer_norm_cuda(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps,
                     LayerNormResult& out) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long d = x.dim(-1), rows = x.numel() / d;
  const cuda::RowLaunch l = cuda::row_launch(rows, d);
  cuda::visit_float(x.dtype(), "layer_norm", [&](auto tag) {
    using T = decltype(tag);
    auto p = [](const Tensor& t) { return cuda::device_ptr<T>(t); };
    if (l.warp)
      ln_forward<T, true><<<l.grid, l.block, 0, stream>>>(p(x), p(gamma), p(beta), eps, rows, d,
                                                          p(out.y), p(out.mean), p(out.rstd));
    else
      ln_forward<T, false><<<l.grid, l.block, 0, stream>>>(p(x), p(gamma), p(beta), eps, rows, d,
                                                           p(out.y), p(out.mean), p(out.rstd));
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

void layer_norm_backward_cuda(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                              const Tensor& mean, const Tensor& rstd, LayerNormGrads& grads) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long d = x.dim(-1), rows = x.numel() / d;
  const cuda::RowLaunch l = cuda::row_launch(rows, d);
  // Row chunks for dgamma/dbeta: enough blocks to fill the GPU, each chunk >= 32 rows. The
  // chunking depends on the shape only, so results do not vary between runs.
  const long long chunk_rows = rows <= 32 * 256 ? 32 : (rows + 255) / 256;
  const long long chunks = (rows + chunk_rows - 1) / chunk_rows;
  Tensor partials = Tensor::empty({2, chunks, d}, DType::kF64, x.device());
  double* pg = static_cast<double*>(partials.raw());
  double* pb = pg + chunks * d;
  cuda::visit_float(x.dtype(), "layer_norm backward", [&](auto tag) {
    using T = decltype(tag);
    auto p = [](const Tensor& t) { return cuda::device_ptr<T>(t); };
    if (l.warp)
      ln_backward_dx<T, true><<<l.grid, l.block, 0, stream>>>(p(dy), p(x), p(gamma), p(mean),
                                                              p(rstd), rows, d, p(grads.dx));
    else
      ln_backward_dx<T, false><<<l.grid, l.block, 0, stream>>>(p(dy), p(x), p(gamma), p(mean),
                                                               p(rstd), rows, d, p(grads.dx));
    REALMT_CUDA_CHECK_LAUNCH();
    const dim3 grid(static_cast<unsigned>((d + kColumns - 1) / kColumns),
                    static_cast<unsigned>(chunks));
    ln_backward_partials<T><<<grid, dim3(kColumns, kRowLanes), 0, stream>>>(
        p(dy), p(x), p(mean), p(rstd), rows, d, chunk_rows, pg, pb);
    REALMT_CUDA_CHECK_LAUNCH();
    ln_backward_columns<T><<<cuda::grid_for(d), cuda::kBlockSize, 0, stream>>>(
        pg, pb, chunks, d, p(grads.dgamma), p(grads.dbeta));
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(layer_norm_kernel, kCuda, layer_norm_cuda);
REALMT_REGISTER_KERNEL(layer_norm_backward_kernel, kCuda, layer_norm_backward_cuda);

}  // namespace realmt::ops
