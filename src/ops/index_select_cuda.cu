// CUDA index_select. Forward: y[o, j, :] = x[o, indices[j], :], one thread per element, moved
// as 1/2/4/8-byte words (any dtype). Backward: deterministic without atomics, as embedding's:
// the K index positions are stable-sorted by index, dx is zeroed, and one thread per
// (outer row, run of equal indices, column) sums its dy rows in position order: the CPU's
// order, so f32/f64 results have the same bits.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/sort_ids.h"
#include "ops/index_select.h"

namespace realmt::ops {
namespace {

template <typename W>
__global__ void gather(const W* x, const int32_t* indices, long long outer, long long n,
                       long long k, long long inner, W* y) {
  const long long total = outer * k * inner;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long c = t % inner, r = t / inner, j = r % k, o = r / k;
    y[t] = x[(o * n + indices[j]) * inner + c];
  }
}

// Thread (o, i, c): if sorted position i starts a run of equal indices, dx[o, index, c] = the
// sum over the run of dy[o, position, c] in position order.
template <typename T>
__global__ void sum_runs(const T* dy, const int32_t* sorted_idx, const int32_t* sorted_pos,
                         long long outer, long long n, long long k, long long inner, T* dx) {
  using C = cuda::compute_t<T>;
  const long long total = outer * k * inner;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long c = t % inner, r = t / inner, i = r % k, o = r / k;
    const int32_t index = sorted_idx[i];
    if (i > 0 && sorted_idx[i - 1] == index) continue;
    C acc = 0;
    for (long long j = i; j < k && sorted_idx[j] == index; ++j)
      acc += cuda::load(dy[(o * k + sorted_pos[j]) * inner + c]);
    dx[(o * n + index) * inner + c] = cuda::store<T>(acc);
  }
}

template <typename W>
void launch_gather(const Tensor& x, const Tensor& indices, const IndexSelectPlan& p, Tensor& y,
                   cudaStream_t stream) {
  gather<W><<<cuda::grid_for(p.outer * p.k * p.inner), cuda::kBlockSize, 0, stream>>>(
      static_cast<const W*>(x.raw()), cuda::device_ptr<int32_t>(indices), p.outer, p.n, p.k,
      p.inner, static_cast<W*>(y.raw()));
  REALMT_CUDA_CHECK_LAUNCH();
}

void index_select_cuda(const Tensor& x, const Tensor& indices, const IndexSelectPlan& p,
                       Tensor& y) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  switch (dtype_size(x.dtype())) {
    case 1: return launch_gather<uint8_t>(x, indices, p, y, stream);
    case 2: return launch_gather<uint16_t>(x, indices, p, y, stream);
    case 4: return launch_gather<uint32_t>(x, indices, p, y, stream);
    case 8: return launch_gather<uint64_t>(x, indices, p, y, stream);
  }
  REALMT_ASSERT(false, "index_select: element size {}", dtype_size(x.dtype()));
}

void index_select_backward_cuda(const Tensor& dy, const Tensor& indices, const IndexSelectPlan& p,
                                Tensor& dx) {
  const int device = dy.device().index;
  const cuda::SortedIds sorted = cuda::sort_ids(indices, p.n);
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  // Rows no index selects stay 0 (all-zero bytes are 0 in every dtype).
  REALMT_CUDA_CHECK(cudaMemsetAsync(dx.raw(), 0, dx.nbytes(), stream));
  if (p.k == 0) return;
  cuda::visit_float(dy.dtype(), "index_select backward", [&](auto tag) {
    using T = decltype(tag);
    sum_runs<T><<<cuda::grid_for(p.outer * p.k * p.inner), cuda::kBlockSize, 0, stream>>>(
        cuda::device_ptr<T>(dy), cuda::device_ptr<int32_t>(sorted.ids),
        cuda::device_ptr<int32_t>(sorted.positions), p.outer, p.n, p.k, p.inner,
        cuda::device_ptr<T>(dx));
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(index_select_kernel, kCuda, index_select_cuda);
REALMT_REGISTER_KERNEL(index_select_backward_kernel, kCuda, index_select_backward_cuda);

}  // namespace realmt::ops
