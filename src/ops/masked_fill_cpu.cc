// CPU masked_fill: the collapsed plan's last axis is a vectorised select, the outer axes are
// split over threads (as the elementwise kernels).
#include "core/parallel.h"
#include "ops/masked_fill.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
void fill(const Tensor& x, const Tensor& mask, double value, const BroadcastPlan& p, Tensor& y) {
  const T* px = x.data<T>();
  const uint8_t* pm = mask.data<uint8_t>();
  T* py = y.data<T>();
  const T v = scalar_cast<T>(value);
  const int last = p.rank - 1;
  const int64_t inner = p.dims[last], im = p.stride_b[last];
  parallel_for(p.numel / inner, inner, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      int64_t om = 0, rem = row;
      for (int d = last - 1; d >= 0; --d) {
        om += (rem % p.dims[d]) * p.stride_b[d];
        rem /= p.dims[d];
      }
      const T* xr = px + row * inner;  // x has y's shape: contiguous rows
      const uint8_t* mr = pm + om;
      T* yr = py + row * inner;
      if (im == 0) {
        if (mr[0])
          std::fill(yr, yr + inner, v);
        else
          std::copy(xr, xr + inner, yr);
      } else {
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) yr[i] = mr[i] ? v : xr[i];
      }
    }
  });
}

void masked_fill_cpu(const Tensor& x, const Tensor& mask, double value, const BroadcastPlan& p,
                     Tensor& y) {
  visit_dtype(x.dtype(), [&](auto tag) { fill<decltype(tag)>(x, mask, value, p, y); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(masked_fill_kernel, kCpu, masked_fill_cpu);

}  // namespace realmt::ops
