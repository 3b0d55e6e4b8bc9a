// CUDA loss rows of the fused output projection: a warp per row up to 1024 classes, a block
// per row for real vocabularies (as ops/cross_entropy_cuda.cu). Per row a max pass, a pass for
// sum exp(z) and sum z (z = x - max; compute-type sums, the log in double as on the CPU) and,
// with gradients, a pass overwriting the logits with P - Q. For f32/f64 the exp pass keeps
// exp(z) in the row, so the gradient pass scales it by 1/s (one exp per logit, as the CPU);
// f16/bf16 recompute exp(x - lse) there instead of rounding exp(z) to the element type first.
// Targets were checked on the host (ops/linear_cross_entropy.cc), so the kernel indexes with
// them directly.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/device_math.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/linear_cross_entropy.h"

namespace realmt::ops {
namespace {

using cuda::MaxOp;
using cuda::RowGroup;
using cuda::SumOp;

// loss = log s - (1 - eps) z_t - (eps / V) sum_j z_j with s = sum_j exp(z_j) in [1, V] (no
// cancellation between a large lse and a large target logit). With gradients:
// x_j <- exp(z_j) / s - eps / V - [j == t] (1 - eps); ignored rows: loss 0, gradient 0.
template <typename T, typename L, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    loss_rows(T* logits, const int32_t* targets, long long rows, long long v, double eps,
              int32_t ignore, bool with_grad, L* loss) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  constexpr bool kKeepExp = std::is_same_v<T, C>;  // f32, f64: exp(z) stored without rounding
  __shared__ C smem[cuda::kWarpSize];
  const C uniform = static_cast<C>(eps / static_cast<double>(v));
  const C on_target = static_cast<C>(1.0 - eps);
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    T* x = logits + r * v;
    const int32_t t = targets[r];  // the same for the whole group: no divergence below
    if (t == ignore) {
      if (G::lane() == 0) loss[r] = L(0);
      if (with_grad)
        for (long long j = G::lane(); j < v; j += G::size()) x[j] = cuda::store<T>(C(0));
      continue;
    }
    const C xt = cuda::load(x[t]);
    C mx = -INFINITY;
    for (long long j = G::lane(); j < v; j += G::size()) mx = MaxOp::apply(mx, cuda::load(x[j]));
    mx = G::template reduce<MaxOp>(mx, smem);
    G::sync();  // every lane has read x[t] before the row is overwritten
    const bool keep_exp = kKeepExp && with_grad;
    C s = 0, zsum = 0;
    for (long long j = G::lane(); j < v; j += G::size()) {
      const C z = cuda::load(x[j]) - mx;
      const C ez = cuda::exp_c(z);
      if (keep_exp) x[j] = cuda::store<T>(ez);
      s += ez;
      zsum += z;
    }
    s = G::template reduce<SumOp>(s, smem);
    zsum = G::template reduce<SumOp>(zsum, smem);
    const double log_s = ::log(static_cast<double>(s));
    if (G::lane() == 0)
      loss[r] = static_cast<L>(log_s - (1.0 - eps) * static_cast<double>(xt - mx) -
                               eps * static_cast<double>(zsum) / static_cast<double>(v));
    if (!with_grad) continue;
    const C inv = static_cast<C>(1.0 / static_cast<double>(s));
    const C lse = static_cast<C>(static_cast<double>(mx) + log_s);
    for (long long j = G::lane(); j < v; j += G::size()) {  // each lane rewrites its own x[j]
      C g = (keep_exp ? cuda::load(x[j]) * inv : cuda::exp_c(cuda::load(x[j]) - lse)) - uniform;
      if (j == t) g -= on_target;
      x[j] = cuda::store<T>(g);
    }
  }
}

void rows_cuda(Tensor& logits, const Tensor& targets, const LinearCrossEntropyOptions& o,
               Tensor& loss) {
  const int device = logits.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long rows = targets.numel(), v = logits.dim(-1);
  const cuda::RowLaunch l = cuda::row_launch(rows, v);
  const int32_t* pt = cuda::device_ptr<int32_t>(targets);
  cuda::visit_float(logits.dtype(), "linear_cross_entropy", [&](auto tag) {
    using T = decltype(tag);
    using L =
        std::conditional_t<std::is_same_v<T, double>, double, float>;  // the header's loss dtype
    T* px = cuda::device_ptr<T>(logits);
    L* pl = static_cast<L*>(loss.raw());
    if (l.warp)
      loss_rows<T, L, true><<<l.grid, l.block, 0, stream>>>(px, pt, rows, v, o.label_smoothing,
                                                            o.ignore_index, o.with_grad, pl);
    else
      loss_rows<T, L, false><<<l.grid, l.block, 0, stream>>>(px, pt, rows, v, o.label_smoothing,
                                                             o.ignore_index, o.with_grad, pl);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(cross_entropy_rows_kernel, kCuda, rows_cuda);

}  // namespace realmt::ops
