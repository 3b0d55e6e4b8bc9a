// CUDA label-smoothed cross-entropy: a warp per row up to 1024 classes, a block per row for
// real vocabularies. Forward: one pass for the max, one for sum exp(z) and sum z (z = x - max;
// sums accumulate in float for f32/f16/bf16, double for f64).
// Backward: p_ij = exp(x_ij - lse_i) recomputed from the saved lse. Targets were checked on
// the host (see the header), so the kernels index with them directly.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/cross_entropy.h"

namespace realmt::ops {
namespace {

using cuda::MaxOp;
using cuda::RowGroup;
using cuda::SumOp;

__device__ __forceinline__ float exp_c(float x) { return expf(x); }
__device__ __forceinline__ double exp_c(double x) { return ::exp(x); }
__device__ __forceinline__ float log_c(float x) { return logf(x); }
__device__ __forceinline__ double log_c(double x) { return ::log(x); }

// With z = x - max (so sum exp(z) lies in [1, V]) and s = sum_j exp(z_j), as on the CPU:
//   lse = max + log s,  loss = log s - (1 - eps) z_t - (eps / V) sum_j z_j,
// which has no cancellation between a large lse and a large target logit.
template <typename T, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    ce_forward(const T* logits, const int32_t* targets, long long rows, long long v, double eps,
               int32_t ignore, T* loss, T* lse) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ C smem[cuda::kWarpSize];
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const T* x = logits + r * v;
    C mx = -INFINITY;
    for (long long j = G::lane(); j < v; j += G::size()) mx = MaxOp::apply(mx, cuda::load(x[j]));
    mx = G::template reduce<MaxOp>(mx, smem);
    C s = 0, zsum = 0;
    for (long long j = G::lane(); j < v; j += G::size()) {
      const C z = cuda::load(x[j]) - mx;
      s += exp_c(z);
      zsum += z;
    }
    s = G::template reduce<SumOp>(s, smem);
    if (eps > 0) zsum = G::template reduce<SumOp>(zsum, smem);  // eps is uniform: no divergence
    if (G::lane() == 0) {
      const C log_s = log_c(s);
      lse[r] = cuda::store<T>(mx + log_s);
      const int32_t t = targets[r];
      C out = 0;
      if (t != ignore) {
        const C zt = cuda::load(x[t]) - mx;
        out = log_s - (C(1) - C(eps)) * zt - (eps > 0 ? C(eps) * zsum / C(v) : C(0));
      }
      loss[r] = cuda::store<T>(out);
    }
  }
}

// dlogits_ij = dloss_i (p_ij - q_ij), q_ij = (1 - eps) [j == t_i] + eps / V; 0 on ignored rows.
template <typename T>
__global__ void ce_backward(const T* dloss, const T* logits, const int32_t* targets, const T* lse,
                            long long rows, long long v, double eps, int32_t ignore, T* dlogits) {
  using C = cuda::compute_t<T>;
  const long long total = rows * v;
  const C smooth = C(eps) / C(v), hit = C(1) - C(eps);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / v, j = i % v;
    const int32_t t = targets[r];
    if (t == ignore) {
      dlogits[i] = cuda::store<T>(C(0));
      continue;
    }
    const C p = exp_c(cuda::load(logits[i]) - cuda::load(lse[r]));
    const C q = (j == t ? hit : C(0)) + smooth;
    dlogits[i] = cuda::store<T>(cuda::load(dloss[r]) * (p - q));
  }
}

void cross_entropy_cuda(const Tensor& logits, const Tensor& targets, const CrossEntropyOptions& o,
                        Tensor& loss, Tensor& lse) {
  const int device = logits.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long rows = targets.numel(), v = logits.dim(-1);
  const cuda::RowLaunch l = cuda::row_launch(rows, v);
  const int32_t* pt = cuda::device_ptr<int32_t>(targets);
  cuda::visit_float(logits.dtype(), "cross_entropy", [&](auto tag) {
    using T = decltype(tag);
    const T* px = cuda::device_ptr<T>(logits);
    T* ploss = cuda::device_ptr<T>(loss);
    T* plse = cuda::device_ptr<T>(lse);
    if (l.warp)
      ce_forward<T, true><<<l.grid, l.block, 0, stream>>>(px, pt, rows, v, o.label_smoothing,
                                                          o.ignore_index, ploss, plse);
    else
      ce_forward<T, false><<<l.grid, l.block, 0, stream>>>(px, pt, rows, v, o.label_smoothing,
                                                           o.ignore_index, ploss, plse);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

void cross_entropy_backward_cuda(const Tensor& dloss, const Tensor& logits, const Tensor& targets,
                                 const Tensor& lse, const CrossEntropyOptions& o, Tensor& dlogits) {
  const int device = logits.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long rows = targets.numel(), v = logits.dim(-1);
  cuda::visit_float(logits.dtype(), "cross_entropy_backward", [&](auto tag) {
    using T = decltype(tag);
    ce_backward<T><<<cuda::grid_for(rows * v), cuda::kBlockSize, 0, stream>>>(
        cuda::device_ptr<T>(dloss), cuda::device_ptr<T>(logits), cuda::device_ptr<int32_t>(targets),
        cuda::device_ptr<T>(lse), rows, v, o.label_smoothing, o.ignore_index,
        cuda::device_ptr<T>(dlogits));
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(cross_entropy_kernel, kCuda, cross_entropy_cuda);
REALMT_REGISTER_KERNEL(cross_entropy_backward_kernel, kCuda, cross_entropy_backward_cuda);

}  // namespace realmt::ops
