// CPU reductions. inner == 1 (the last axis): one vectorised pass per row. Otherwise rows of
// `inner` contiguous accumulators are updated for each of the n slices, which keeps memory
// access sequential.
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "ops/reduce.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
void sum_rows(const Tensor& x, const ReducePlan& p, Tensor& out) {
  const T* px = x.data<T>();
  T* po = out.data<T>();
  parallel_for(p.outer, p.n * p.inner, [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) {
      const T* base = px + o * p.n * p.inner;
      T* dst = po + o * p.inner;
      if (p.inner == 1) {
        T acc = 0;
#pragma omp simd reduction(+ : acc)
        for (int64_t j = 0; j < p.n; ++j) acc += base[j];
        dst[0] = acc;
        continue;
      }
      for (int64_t i = 0; i < p.inner; ++i) dst[i] = 0;
      for (int64_t j = 0; j < p.n; ++j) {
        const T* row = base + j * p.inner;
#pragma omp simd
        for (int64_t i = 0; i < p.inner; ++i) dst[i] += row[i];
      }
    }
  });
}

template <typename T>
void max_rows(const Tensor& x, const ReducePlan& p, Tensor& out, Tensor& indices) {
  const T* px = x.data<T>();
  T* po = out.data<T>();
  int32_t* pi = indices.defined() ? indices.data<int32_t>() : nullptr;
  parallel_for(p.outer, p.n * p.inner, [&](int64_t lo, int64_t hi) {
    for (int64_t o = lo; o < hi; ++o) {
      const T* base = px + o * p.n * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        T best = base[i];
        int32_t arg = 0;
        for (int64_t j = 1; j < p.n; ++j) {
          const T v = base[j * p.inner + i];
          if (v > best) {  // strict: the first maximum wins; NaN never replaces
            best = v;
            arg = static_cast<int32_t>(j);
          }
        }
        po[o * p.inner + i] = best;
        if (pi) pi[o * p.inner + i] = arg;
      }
    }
  });
}

void sum_cpu(const Tensor& x, const ReducePlan& p, Tensor& out, Tensor&) {
  visit_float(x.dtype(), "sum", [&](auto tag) { sum_rows<decltype(tag)>(x, p, out); });
}
void max_cpu(const Tensor& x, const ReducePlan& p, Tensor& out, Tensor& indices) {
  visit_float(x.dtype(), "max", [&](auto tag) { max_rows<decltype(tag)>(x, p, out, indices); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(sum_kernel, kCpu, sum_cpu);
REALMT_REGISTER_KERNEL(max_kernel, kCpu, max_cpu);

}  // namespace realmt::ops
