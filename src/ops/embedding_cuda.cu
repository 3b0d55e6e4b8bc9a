// CUDA embedding. Forward: a row gather, one thread per element, moved as 1/2/4/8-byte words
// (any dtype). Backward: deterministic without atomics. Positions are stable-sorted by id
// (cuda::sort_ids: equal ids keep position order), then one thread per (id, column) sums its
// positions' dy in position order: the same order, hence for f32/f64 the same bits, as the
// CPU kernel, and the same bits on every run.

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/sort_ids.h"
#include "ops/embedding.h"

namespace realmt::ops {
namespace {

template <typename W>
__global__ void gather_rows(const W* weight, const int32_t* ids, long long positions, long long d,
                            W* y) {
  const long long total = positions * d;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long p = i / d, c = i % d;
    y[i] = weight[static_cast<long long>(ids[p]) * d + c];
  }
}

// Thread (i, c): if sorted position i starts a run of equal ids, sum column c of dy over the
// run (in position order) into dweight[id, c].
template <typename T>
__global__ void sum_runs(const T* dy, const int32_t* sorted_ids, const int32_t* sorted_pos,
                         long long positions, long long d, T* dweight) {
  using C = cuda::compute_t<T>;
  const long long total = positions * d;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long i = t / d, c = t % d;
    const int32_t id = sorted_ids[i];
    if (i > 0 && sorted_ids[i - 1] == id) continue;
    T* dst = dweight + static_cast<long long>(id) * d + c;
    C acc = cuda::load(*dst);  // arrives zeroed; the CPU also adds onto it
    for (long long j = i; j < positions && sorted_ids[j] == id; ++j)
      acc += cuda::load(dy[static_cast<long long>(sorted_pos[j]) * d + c]);
    *dst = cuda::store<T>(acc);
  }
}

template <typename W>
void gather(const Tensor& weight, const Tensor& ids, Tensor& y, cudaStream_t stream) {
  const long long positions = ids.numel(), d = weight.dim(1);
  gather_rows<W><<<cuda::grid_for(positions * d), cuda::kBlockSize, 0, stream>>>(
      static_cast<const W*>(weight.raw()), cuda::device_ptr<int32_t>(ids), positions, d,
      static_cast<W*>(y.raw()));
  REALMT_CUDA_CHECK_LAUNCH();
}

void embedding_cuda(const Tensor& weight, const Tensor& ids, Tensor& y) {
  const int device = weight.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  switch (dtype_size(weight.dtype())) {
    case 1: return gather<uint8_t>(weight, ids, y, stream);
    case 2: return gather<uint16_t>(weight, ids, y, stream);
    case 4: return gather<uint32_t>(weight, ids, y, stream);
    case 8: return gather<uint64_t>(weight, ids, y, stream);
  }
  REALMT_ASSERT(false, "embedding: element size {}", dtype_size(weight.dtype()));
}

void embedding_backward_cuda(const Tensor& dy, const Tensor& ids, Tensor& dweight) {
  const int device = dy.device().index;
  const cuda::SortedIds sorted = cuda::sort_ids(ids, dweight.dim(0));
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long positions = ids.numel(), d = dy.dim(-1);
  cuda::visit_float(dy.dtype(), "embedding backward", [&](auto tag) {
    using T = decltype(tag);
    sum_runs<T><<<cuda::grid_for(positions * d), cuda::kBlockSize, 0, stream>>>(
        cuda::device_ptr<T>(dy), cuda::device_ptr<int32_t>(sorted.ids),
        cuda::device_ptr<int32_t>(sorted.positions), positions, d, cuda::device_ptr<T>(dweight));
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(embedding_kernel, kCuda, embedding_cuda);
REALMT_REGISTER_KERNEL(embedding_backward_kernel, kCuda, embedding_backward_cuda);

}  // namespace realmt::ops
