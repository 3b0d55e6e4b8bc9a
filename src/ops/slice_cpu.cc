// CPU slice: for each of the `outer` rows, one contiguous run of part_extent * inner elements
// (memcpy); rows are split over threads.
#include <cstring>

#include "core/parallel.h"
#include "ops/slice.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

void slice_cpu(const Tensor& x, const SlicePlan& p, Tensor& y) {
  const size_t elem = dtype_size(x.dtype());
  const size_t run = static_cast<size_t>(p.part_extent * p.inner) * elem;
  const size_t x_row = static_cast<size_t>(p.full_extent * p.inner) * elem;
  const char* src =
      static_cast<const char*>(x.raw()) + static_cast<size_t>(p.begin * p.inner) * elem;
  char* dst = static_cast<char*>(y.raw());
  parallel_for(p.outer, p.part_extent * p.inner, [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) std::memcpy(dst + o * run, src + o * x_row, run);
  });
}

void slice_backward_cpu(const Tensor& dy, const SlicePlan& p, Tensor& dx) {
  const size_t elem = dtype_size(dy.dtype());
  const size_t run = static_cast<size_t>(p.part_extent * p.inner) * elem;
  const size_t head = static_cast<size_t>(p.begin * p.inner) * elem;
  const size_t row = static_cast<size_t>(p.full_extent * p.inner) * elem;
  const char* src = static_cast<const char*>(dy.raw());
  char* dst = static_cast<char*>(dx.raw());
  // All-zero bytes are 0 in every dtype, so memset writes the zeros of any type.
  parallel_for(p.outer, p.full_extent * p.inner, [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) {
      char* r = dst + o * row;
      std::memset(r, 0, head);
      std::memcpy(r + head, src + o * run, run);
      std::memset(r + head + run, 0, row - head - run);
    }
  });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(slice_kernel, kCpu, slice_cpu);
REALMT_REGISTER_KERNEL(slice_backward_kernel, kCpu, slice_backward_cpu);

}  // namespace realmt::ops
