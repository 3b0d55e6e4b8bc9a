// CUB's radix sort is stable: equal keys keep their input order.
#include <climits>
#include <cub/device/device_radix_sort.cuh>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/sort_ids.h"

namespace realmt::cuda {
namespace {

__global__ void iota(int32_t* out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = static_cast<int32_t>(i);
}

}  // namespace

SortedIds sort_ids(const Tensor& ids, int64_t limit) {
  const Device dev = ids.device();
  const long long n = ids.numel();
  REALMT_CHECK(n <= INT_MAX, "sorting {} ids exceeds the sort's int range", n);
  SortedIds out{Tensor::empty({n}, DType::kI32, dev), Tensor::empty({n}, DType::kI32, dev)};
  if (n == 0) return out;
  const cudaStream_t stream = current_stream(dev.index);
  set_device(dev.index);
  // Ids lie in [0, limit): sorting their low bits only is enough.
  int end_bit = 1;
  while (end_bit < 31 && (1LL << end_bit) < limit) ++end_bit;
  Tensor positions_in = Tensor::empty({n}, DType::kI32, dev);
  auto* pos_in = static_cast<int32_t*>(positions_in.raw());
  iota<<<grid_for(n), kBlockSize, 0, stream>>>(pos_in, n);
  REALMT_CUDA_CHECK_LAUNCH();
  const auto* keys_in = static_cast<const int32_t*>(ids.raw());
  auto* keys_out = static_cast<int32_t*>(out.ids.raw());
  auto* pos_out = static_cast<int32_t*>(out.positions.raw());
  size_t temp_bytes = 0;
  REALMT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, pos_in,
                                                    pos_out, static_cast<int>(n), 0, end_bit,
                                                    stream));
  Tensor temp =
      Tensor::empty({static_cast<int64_t>(temp_bytes > 0 ? temp_bytes : 1)}, DType::kU8, dev);
  REALMT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.raw(), temp_bytes, keys_in, keys_out,
                                                    pos_in, pos_out, static_cast<int>(n), 0,
                                                    end_bit, stream));
  // positions_in and temp return to the caching allocator here; the queued sort that reads
  // them is ordered on the stream before any later use of those blocks.
  return out;
}

}  // namespace realmt::cuda
