// CUDA softmax / log_softmax over the last axis: a warp per row up to 1024 columns, a block
// per row beyond. Three passes over the row as on the CPU: max of x + mask, sum of
// exp(v - max), then the output. f16/bf16 compute in float.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/softmax.h"

namespace realmt::ops {
namespace {

using cuda::MaxOp;
using cuda::RowGroup;
using cuda::SumOp;

// RowBroadcast as a plain struct for the kernel (std::array is host code).
struct DeviceRows {
  int rank;
  long long dims[kMaxDims];
  long long strides[kMaxDims];
  __device__ long long mask_row(long long r) const {
    long long off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      off += (r % dims[d]) * strides[d];
      r /= dims[d];
    }
    return off;
  }
};

__device__ __forceinline__ float exp_c(float x) { return expf(x); }  // exactly 0 at -inf
__device__ __forceinline__ double exp_c(double x) { return ::exp(x); }
__device__ __forceinline__ float log_c(float x) { return logf(x); }
__device__ __forceinline__ double log_c(double x) { return ::log(x); }

template <typename T, bool kLog, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    softmax_forward(const T* x, const T* mask, DeviceRows rb, T* y, long long rows, long long n) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ C smem[cuda::kWarpSize];
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const T* xr = x + r * n;
    const T* mr = mask ? mask + rb.mask_row(r) * n : nullptr;
    T* yr = y + r * n;
    auto value = [&](long long j) {
      C v = cuda::load(xr[j]);
      if (mr) v += cuda::load(mr[j]);
      return v;
    };
    C mx = -INFINITY;
    for (long long j = G::lane(); j < n; j += G::size()) mx = MaxOp::apply(mx, value(j));
    mx = G::template reduce<MaxOp>(mx, smem);
    if (mx == C(-INFINITY)) {  // every entry masked: zeros (log: -inf), not NaN
      for (long long j = G::lane(); j < n; j += G::size())
        yr[j] = cuda::store<T>(kLog ? C(-INFINITY) : C(0));
      continue;
    }
    C sum = 0;
    for (long long j = G::lane(); j < n; j += G::size()) sum += exp_c(value(j) - mx);
    sum = G::template reduce<SumOp>(sum, smem);
    if constexpr (kLog) {
      // (x - max) - log(sum), as the CPU computes it: rounding max + log(sum) first loses
      // up to half an ulp of max (seen on the H200: 3.4e-6 off at logits of +-80).
      const C log_sum = log_c(sum);
      for (long long j = G::lane(); j < n; j += G::size())
        yr[j] = cuda::store<T>((value(j) - mx) - log_sum);
    } else {
      const C inv = C(1) / sum;
      for (long long j = G::lane(); j < n; j += G::size())
        yr[j] = cuda::store<T>(exp_c(value(j) - mx) * inv);
    }
  }
}

// softmax: dx = y (dy - sum dy y); log_softmax: dx = dy - exp(y) sum dy (exp(-inf) = 0
// keeps masked entries' gradient at dy).
template <typename T, bool kLog, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    softmax_backward(const T* dy, const T* y, T* dx, long long rows, long long n) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ C smem[cuda::kWarpSize];
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const T* g = dy + r * n;
    const T* yr = y + r * n;
    T* d = dx + r * n;
    C dot = 0;
    for (long long j = G::lane(); j < n; j += G::size())
      dot += kLog ? cuda::load(g[j]) : cuda::load(g[j]) * cuda::load(yr[j]);
    dot = G::template reduce<SumOp>(dot, smem);
    for (long long j = G::lane(); j < n; j += G::size()) {
      const C gj = cuda::load(g[j]), yj = cuda::load(yr[j]);
      d[j] = cuda::store<T>(kLog ? gj - exp_c(yj) * dot : yj * (gj - dot));
    }
  }
}

template <bool kLog>
void softmax_cuda(const Tensor& x, const Tensor& mask, const RowBroadcast& rb, Tensor& y) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  DeviceRows drb{};
  drb.rank = rb.rank;
  for (int d = 0; d < rb.rank; ++d) {
    drb.dims[d] = rb.dims[d];
    drb.strides[d] = rb.strides[d];
  }
  const long long rows = rb.rows, n = rb.cols;
  const cuda::RowLaunch l = cuda::row_launch(rows, n);
  cuda::visit_float(x.dtype(), "softmax", [&](auto tag) {
    using T = decltype(tag);
    const T* pm = mask.defined() ? cuda::device_ptr<T>(mask) : nullptr;
    if (l.warp)
      softmax_forward<T, kLog, true><<<l.grid, l.block, 0, stream>>>(
          cuda::device_ptr<T>(x), pm, drb, cuda::device_ptr<T>(y), rows, n);
    else
      softmax_forward<T, kLog, false><<<l.grid, l.block, 0, stream>>>(
          cuda::device_ptr<T>(x), pm, drb, cuda::device_ptr<T>(y), rows, n);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

template <bool kLog>
void softmax_backward_cuda(const Tensor& dy, const Tensor& y, Tensor& dx) {
  const int device = y.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long n = y.dim(-1), rows = y.numel() / n;
  const cuda::RowLaunch l = cuda::row_launch(rows, n);
  cuda::visit_float(y.dtype(), "softmax backward", [&](auto tag) {
    using T = decltype(tag);
    const T* pdy = cuda::device_ptr<T>(dy);
    const T* py = cuda::device_ptr<T>(y);
    T* pdx = cuda::device_ptr<T>(dx);
    if (l.warp)
      softmax_backward<T, kLog, true><<<l.grid, l.block, 0, stream>>>(pdy, py, pdx, rows, n);
    else
      softmax_backward<T, kLog, false><<<l.grid, l.block, 0, stream>>>(pdy, py, pdx, rows, n);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(softmax_kernel, kCuda, softmax_cuda<false>);
REALMT_REGISTER_KERNEL(log_softmax_kernel, kCuda, softmax_cuda<true>);
REALMT_REGISTER_KERNEL(softmax_backward_kernel, kCuda, softmax_backward_cuda<false>);
REALMT_REGISTER_KERNEL(log_softmax_backward_kernel, kCuda, softmax_backward_cuda<true>);

}  // namespace realmt::ops
