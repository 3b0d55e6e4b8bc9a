// CPU binary elementwise kernels: the collapsed plan's last axis is a vectorised inner loop,
// the outer axes are split over threads.
#include "core/parallel.h"
#include "ops/elementwise.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

struct AddF {
  template <typename T>
  static T f(T x, T y) {
    return x + y;
  }
};
struct SubF {
  template <typename T>
  static T f(T x, T y) {
    return x - y;
  }
};
struct MulF {
  template <typename T>
  static T f(T x, T y) {
    return x * y;
  }
};
struct DivF {
  template <typename T>
  static T f(T x, T y) {
    return x / y;
  }
};

template <typename F, typename T>
void run(const Tensor& a, const Tensor& b, Tensor& out, const BroadcastPlan& p) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* po = out.data<T>();
  const int last = p.rank - 1;
  const int64_t inner = p.dims[last];
  const int64_t ia = p.stride_a[last], ib = p.stride_b[last];
  const int64_t rows = p.numel / inner;
  parallel_for(rows, inner, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      // Offsets of this row in a and b from its multi-index over the outer axes.
      int64_t oa = 0, ob = 0, rem = row;
      for (int d = last - 1; d >= 0; --d) {
        const int64_t idx = rem % p.dims[d];
        rem /= p.dims[d];
        oa += idx * p.stride_a[d];
        ob += idx * p.stride_b[d];
      }
      const T* xa = pa + oa;
      const T* xb = pb + ob;
      T* y = po + row * inner;
      if (ia == 1 && ib == 1) {
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) y[i] = F::f(xa[i], xb[i]);
      } else if (ia == 1 && ib == 0) {
        const T s = xb[0];
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) y[i] = F::f(xa[i], s);
      } else if (ia == 0 && ib == 1) {
        const T s = xa[0];
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) y[i] = F::f(s, xb[i]);
      } else {
        for (int64_t i = 0; i < inner; ++i) y[i] = F::f(xa[i * ia], xb[i * ib]);
      }
    }
  });
}

template <typename F>
void binary_cpu(const Tensor& a, const Tensor& b, Tensor& out, const BroadcastPlan& p) {
  visit_float(a.dtype(), "elementwise", [&](auto tag) { run<F, decltype(tag)>(a, b, out, p); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(add_kernel, kCpu, binary_cpu<AddF>);
REALMT_REGISTER_KERNEL(sub_kernel, kCpu, binary_cpu<SubF>);
REALMT_REGISTER_KERNEL(mul_kernel, kCpu, binary_cpu<MulF>);
REALMT_REGISTER_KERNEL(div_kernel, kCpu, binary_cpu<DivF>);

}  // namespace realmt::ops
