// CUDA slice: each of the `outer` rows is one contiguous run of part_extent * inner elements
// in x and in y, so the whole op is one strided (2-D) device copy. The backward pass zeroes
// dx and copies dy into its rows. Any dtype: bytes are moved.
#include "backend/cuda/copy_rows.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "ops/slice.h"

namespace realmt::ops {
namespace {

void slice_cuda(const Tensor& x, const SlicePlan& p, Tensor& y) {
  const size_t elem = dtype_size(x.dtype());
  const size_t run = static_cast<size_t>(p.part_extent * p.inner) * elem;
  const size_t x_row = static_cast<size_t>(p.full_extent * p.inner) * elem;
  const char* src =
      static_cast<const char*>(x.raw()) + static_cast<size_t>(p.begin * p.inner) * elem;
  cuda::copy_rows(x.device().index, y.raw(), run, src, x_row, run, static_cast<size_t>(p.outer));
}

void slice_backward_cuda(const Tensor& dy, const SlicePlan& p, Tensor& dx) {
  const int device = dx.device().index;
  const size_t elem = dtype_size(dy.dtype());
  const size_t run = static_cast<size_t>(p.part_extent * p.inner) * elem;
  const size_t row = static_cast<size_t>(p.full_extent * p.inner) * elem;
  // All-zero bytes are 0 in every dtype. The rows dy overwrites are zeroed too: one memset of
  // the whole tensor is cheaper than a 2-D one around each run.
  if (run < row) {
    const cudaStream_t stream = cuda::current_stream(device);
    cuda::set_device(device);
    REALMT_CUDA_CHECK(cudaMemsetAsync(dx.raw(), 0, dx.nbytes(), stream));
  }
  char* dst = static_cast<char*>(dx.raw()) + static_cast<size_t>(p.begin * p.inner) * elem;
  cuda::copy_rows(device, dst, row, dy.raw(), run, run, static_cast<size_t>(p.outer));
}

}  // namespace

REALMT_REGISTER_KERNEL(slice_kernel, kCuda, slice_cuda);
REALMT_REGISTER_KERNEL(slice_backward_kernel, kCuda, slice_backward_cuda);

}  // namespace realmt::ops
