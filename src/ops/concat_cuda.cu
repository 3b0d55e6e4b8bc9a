// CUDA concat: each outer row of x is one contiguous run of x_extent * inner elements in x
// and in y, so each input is one strided (2-D) device copy. Any dtype: bytes are moved.
#include "backend/cuda/copy_rows.h"
#include "ops/concat.h"

namespace realmt::ops {
namespace {

void concat_cuda(const Tensor& x, const ConcatPlan& p, Tensor& y) {
  const size_t elem = dtype_size(x.dtype());
  const size_t run = static_cast<size_t>(p.x_extent * p.inner) * elem;
  const size_t y_row = static_cast<size_t>(p.y_extent * p.inner) * elem;
  char* dst = static_cast<char*>(y.raw()) + static_cast<size_t>(p.offset * p.inner) * elem;
  cuda::copy_rows(y.device().index, dst, y_row, x.raw(), run, run, static_cast<size_t>(p.outer));
}

}  // namespace

REALMT_REGISTER_KERNEL(concat_kernel, kCuda, concat_cuda);

}  // namespace realmt::ops
