// CUDA reductions over x viewed as [outer, n, inner]. inner == 1 (the last axis): a warp or
// a block per output reduces a contiguous row. Otherwise one thread per output walks the n
// slices, neighbouring threads reading neighbouring elements. Sums accumulate in float for
// f16/bf16/f32 and in double for f64. max keeps the CPU's rule: the first maximum wins, a NaN
// in the first slice is the result, a NaN later never replaces.
#include <climits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/reduce.h"

namespace realmt::ops {
namespace {

using cuda::RowGroup;
using cuda::SumOp;

template <typename T, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    sum_rows(const T* x, T* out, long long rows, long long n) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ C smem[cuda::kWarpSize];
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const T* xr = x + r * n;
    C acc = 0;
    for (long long j = G::lane(); j < n; j += G::size()) acc += cuda::load(xr[j]);
    acc = G::template reduce<SumOp>(acc, smem);
    if (G::lane() == 0) out[r] = cuda::store<T>(acc);
  }
}

template <typename T>
__global__ void sum_columns(const T* x, T* out, long long outer, long long n, long long inner) {
  using C = cuda::compute_t<T>;
  const long long total = outer * inner;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long o = i / inner, c = i % inner;
    const T* base = x + o * n * inner + c;
    C acc = 0;
    for (long long j = 0; j < n; ++j) acc += cuda::load(base[j * inner]);
    out[i] = cuda::store<T>(acc);
  }
}

// A max candidate: its value and index along the axis. The CPU scans in order with a strict
// `>`; that equals ranking candidates by value with ties to the lower index, NaNs last,
// except that a NaN at index 0 (the scan's starting value) beats everything.
template <typename C>
struct ArgMax {
  C value;
  int index;  // INT_MAX: no candidate yet
};

template <typename C>
__device__ __forceinline__ bool better(const ArgMax<C>& a, const ArgMax<C>& b) {
  if (a.index == INT_MAX) return false;
  if (b.index == INT_MAX) return true;
  const bool a_top = a.index == 0 && a.value != a.value, b_top = b.index == 0 && b.value != b.value;
  if (a_top || b_top) return a_top;
  const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
  if (a_nan || b_nan) return !a_nan && b_nan ? true : (a_nan && b_nan && a.index < b.index);
  return a.value > b.value || (a.value == b.value && a.index < b.index);
}

template <typename C>
__device__ __forceinline__ ArgMax<C> pick(const ArgMax<C>& a, const ArgMax<C>& b) {
  return better(b, a) ? b : a;
}

template <typename C>
__device__ __forceinline__ ArgMax<C> warp_argmax(ArgMax<C> v) {
#pragma unroll
  for (int offset = cuda::kWarpSize / 2; offset > 0; offset >>= 1) {
    ArgMax<C> other{__shfl_xor_sync(0xffffffffu, v.value, offset),
                    __shfl_xor_sync(0xffffffffu, v.index, offset)};
    v = pick(v, other);
  }
  return v;
}

template <typename T, bool kWarp>
__global__ void __launch_bounds__(cuda::kMaxRowBlock)
    max_rows(const T* x, T* out, int* indices, long long rows, long long n) {
  using C = cuda::compute_t<T>;
  using G = RowGroup<kWarp>;
  __shared__ C smem_v[cuda::kWarpSize];
  __shared__ int smem_i[cuda::kWarpSize];
  for (long long r = G::first_row(); r < rows; r += G::row_stride()) {
    const T* xr = x + r * n;
    ArgMax<C> best{C(0), INT_MAX};
    for (long long j = G::lane(); j < n; j += G::size())
      best = pick(best, ArgMax<C>{cuda::load(xr[j]), static_cast<int>(j)});
    best = warp_argmax(best);
    if constexpr (!kWarp) {
      const int lane = threadIdx.x % cuda::kWarpSize, warp = threadIdx.x / cuda::kWarpSize;
      const int warps = (blockDim.x + cuda::kWarpSize - 1) / cuda::kWarpSize;
      __syncthreads();  // the previous row's readers are done with smem
      if (lane == 0) {
        smem_v[warp] = best.value;
        smem_i[warp] = best.index;
      }
      __syncthreads();
      best = lane < warps ? ArgMax<C>{smem_v[lane], smem_i[lane]} : ArgMax<C>{C(0), INT_MAX};
      best = warp_argmax(best);
    }
    if (G::lane() == 0) {
      out[r] = cuda::store<T>(best.value);
      if (indices) indices[r] = best.index;
    }
  }
}

template <typename T>
__global__ void max_columns(const T* x, T* out, int* indices, long long outer, long long n,
                            long long inner) {
  using C = cuda::compute_t<T>;
  const long long total = outer * inner;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long o = i / inner, c = i % inner;
    const T* base = x + o * n * inner + c;
    C best = cuda::load(base[0]);
    int arg = 0;
    for (long long j = 1; j < n; ++j) {
      const C v = cuda::load(base[j * inner]);
      if (v > best) {  // the CPU's scan, verbatim
        best = v;
        arg = static_cast<int>(j);
      }
    }
    out[i] = cuda::store<T>(best);
    if (indices) indices[i] = arg;
  }
}

void sum_cuda(const Tensor& x, const ReducePlan& p, Tensor& out, Tensor&) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  cuda::visit_float(x.dtype(), "sum", [&](auto tag) {
    using T = decltype(tag);
    const T* px = cuda::device_ptr<T>(x);
    T* po = cuda::device_ptr<T>(out);
    if (p.inner == 1) {
      const cuda::RowLaunch l = cuda::row_launch(p.outer, p.n);
      if (l.warp)
        sum_rows<T, true><<<l.grid, l.block, 0, stream>>>(px, po, p.outer, p.n);
      else
        sum_rows<T, false><<<l.grid, l.block, 0, stream>>>(px, po, p.outer, p.n);
    } else {
      const long long total = p.outer * p.inner;
      sum_columns<T>
          <<<cuda::grid_for(total), cuda::kBlockSize, 0, stream>>>(px, po, p.outer, p.n, p.inner);
    }
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

void max_cuda(const Tensor& x, const ReducePlan& p, Tensor& out, Tensor& indices) {
  REALMT_CHECK(p.n <= INT_MAX, "max: axis of {} elements exceeds the i32 index range", p.n);
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  int* pi = indices.defined() ? cuda::device_ptr<int>(indices) : nullptr;
  cuda::visit_float(x.dtype(), "max", [&](auto tag) {
    using T = decltype(tag);
    const T* px = cuda::device_ptr<T>(x);
    T* po = cuda::device_ptr<T>(out);
    if (p.inner == 1) {
      const cuda::RowLaunch l = cuda::row_launch(p.outer, p.n);
      if (l.warp)
        max_rows<T, true><<<l.grid, l.block, 0, stream>>>(px, po, pi, p.outer, p.n);
      else
        max_rows<T, false><<<l.grid, l.block, 0, stream>>>(px, po, pi, p.outer, p.n);
    } else {
      const long long total = p.outer * p.inner;
      max_columns<T><<<cuda::grid_for(total), cuda::kBlockSize, 0, stream>>>(px, po, pi, p.outer,
                                                                             p.n, p.inner);
    }
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(sum_kernel, kCuda, sum_cuda);
REALMT_REGISTER_KERNEL(max_kernel, kCuda, max_cuda);

}  // namespace realmt::ops
