// CPU index_select. Forward: each (outer row, index) pair is one contiguous run of `inner`
// elements (memcpy). Backward: threads own disjoint column blocks of dx and walk the indices
// in order inside each, so sums over repeated indices are deterministic without atomics.
#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "ops/index_select.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

void index_select_cpu(const Tensor& x, const Tensor& indices, const IndexSelectPlan& p, Tensor& y) {
  const size_t elem = dtype_size(x.dtype());
  const size_t run = static_cast<size_t>(p.inner) * elem;
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  const int32_t* idx = indices.data<int32_t>();
  parallel_for(p.outer * p.k, p.inner, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t o = r / p.k, j = r % p.k;
      std::memcpy(dst + r * run, src + (o * p.n + idx[j]) * run, run);
    }
  });
}

template <typename T>
void scatter_add(const Tensor& dy, const int32_t* idx, const IndexSelectPlan& p, Tensor& dx) {
  const T* g = dy.data<T>();
  T* d = dx.data<T>();
  constexpr int64_t kBlock = 1024;  // columns of one work unit
  const int64_t blocks = (p.inner + kBlock - 1) / kBlock;
  parallel_for(p.outer * blocks, std::min(p.inner, kBlock) * (p.n + p.k),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t u = lo; u < hi; ++u) {
                   const int64_t o = u / blocks, c0 = (u % blocks) * kBlock,
                                 c1 = std::min(p.inner, c0 + kBlock);
                   for (int64_t r = 0; r < p.n; ++r) {
                     T* dr = d + (o * p.n + r) * p.inner;
                     std::fill(dr + c0, dr + c1, T(0));
                   }
                   for (int64_t j = 0; j < p.k; ++j) {
                     T* dr = d + (o * p.n + idx[j]) * p.inner;
                     const T* gr = g + (o * p.k + j) * p.inner;
#pragma omp simd
                     for (int64_t c = c0; c < c1; ++c) dr[c] += gr[c];
                   }
                 }
               });
}

void index_select_backward_cpu(const Tensor& dy, const Tensor& indices, const IndexSelectPlan& p,
                               Tensor& dx) {
  visit_float(dy.dtype(), "index_select backward",
              [&](auto tag) { scatter_add<decltype(tag)>(dy, indices.data<int32_t>(), p, dx); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(index_select_kernel, kCpu, index_select_cpu);
REALMT_REGISTER_KERNEL(index_select_backward_kernel, kCpu, index_select_backward_cpu);

}  // namespace realmt::ops
