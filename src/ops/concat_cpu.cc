// CPU concat: each outer row of x is one contiguous run of x_extent * inner elements in both
// x and y (memcpy); rows are split over threads.
#include <cstring>

#include "core/parallel.h"
#include "ops/concat.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

void concat_cpu(const Tensor& x, const ConcatPlan& p, Tensor& y) {
  const size_t elem = dtype_size(x.dtype());
  const size_t run = static_cast<size_t>(p.x_extent * p.inner) * elem;
  const size_t y_row = static_cast<size_t>(p.y_extent * p.inner) * elem;
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw()) + static_cast<size_t>(p.offset * p.inner) * elem;
  parallel_for(p.outer, p.x_extent * p.inner, [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) std::memcpy(dst + o * y_row, src + o * run, run);
  });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(concat_kernel, kCpu, concat_cpu);

}  // namespace realmt::ops
