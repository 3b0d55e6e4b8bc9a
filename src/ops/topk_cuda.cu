// CUDA top-k / argmax over the last axis: a block per row and k selection rounds. Entries are
// totally ordered (key desc, then position asc; key = the value in f32, f64 for f64, NaN as
// -inf), so round r picks the best entry ranked below round r-1's winner with one block-wide
// arg-max over the row. That costs k passes over the row: cheap for argmax (k = 1) and beam
// search (k = 2 x beam) that call it; a large k (hundreds) would want a sort instead.
#include <climits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/topk.h"

namespace realmt::ops {
namespace {

template <typename C>
struct Entry {
  C key;
  int index;  // -1: none
};

// a ranks above b (an empty entry ranks below everything).
template <typename C>
__device__ __forceinline__ bool better(const Entry<C>& a, const Entry<C>& b) {
  if (a.index < 0) return false;
  if (b.index < 0) return true;
  return a.key > b.key || (a.key == b.key && a.index < b.index);
}

template <typename T>
__device__ __forceinline__ cuda::compute_t<T> key_of(T x) {
  const cuda::compute_t<T> v = cuda::load(x);
  return v == v ? v : -INFINITY;
}

template <typename C>
__device__ __forceinline__ Entry<C> warp_best(Entry<C> e) {
  for (int offset = cuda::kWarpSize / 2; offset > 0; offset >>= 1) {
    const Entry<C> o{__shfl_xor_sync(0xffffffffu, e.key, offset),
                     __shfl_xor_sync(0xffffffffu, e.index, offset)};
    if (better(o, e)) e = o;
  }
  return e;
}

template <typename T>
__global__ void __launch_bounds__(512)
    topk_rows(const T* x, long long rows, long long n, long long k, T* values, int32_t* indices) {
  using C = cuda::compute_t<T>;
  __shared__ C smem_key[cuda::kWarpSize];
  __shared__ int smem_index[cuda::kWarpSize];
  const int lane = threadIdx.x % cuda::kWarpSize, warp = threadIdx.x / cuda::kWarpSize;
  const int warps = (blockDim.x + cuda::kWarpSize - 1) / cuda::kWarpSize;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    Entry<C> prev{C(0), -1};
    for (long long round = 0; round < k; ++round) {
      Entry<C> best{C(0), -1};
      for (long long j = threadIdx.x; j < n; j += blockDim.x) {
        const Entry<C> e{key_of(xr[j]), static_cast<int>(j)};
        if ((prev.index < 0 || better(prev, e)) && better(e, best)) best = e;
      }
      best = warp_best(best);
      __syncthreads();  // the previous round's readers are done with smem
      if (lane == 0) {
        smem_key[warp] = best.key;
        smem_index[warp] = best.index;
      }
      __syncthreads();
      best = lane < warps ? Entry<C>{smem_key[lane], smem_index[lane]} : Entry<C>{C(0), -1};
      prev = warp_best(best);  // every warp computes the same winner
      if (threadIdx.x == 0) {
        indices[r * k + round] = prev.index;
        if (values) values[r * k + round] = xr[prev.index];  // the original value (NaN stays)
      }
    }
  }
}

void topk_cuda(const Tensor& x, const TopkPlan& p, Tensor& values, Tensor& indices) {
  REALMT_CHECK(p.n <= INT_MAX, "topk: rows of {} entries exceed the i32 index range", p.n);
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long rounded = (p.n + cuda::kWarpSize - 1) / cuda::kWarpSize * cuda::kWarpSize;
  const int block = static_cast<int>(rounded < 512 ? rounded : 512);
  const unsigned grid = static_cast<unsigned>(p.rows < (1LL << 20) ? p.rows : (1LL << 20));
  cuda::visit_float(x.dtype(), "topk", [&](auto tag) {
    using T = decltype(tag);
    topk_rows<T>
        <<<grid, block, 0, stream>>>(cuda::device_ptr<T>(x), p.rows, p.n, p.k,
                                     values.defined() ? cuda::device_ptr<T>(values) : nullptr,
                                     cuda::device_ptr<int32_t>(indices));
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(topk_kernel, kCuda, topk_cuda);

}  // namespace realmt::ops
