// CPU embedding: the forward copies rows (positions over threads); the backward scatter-adds
// with threads owning disjoint column ranges, so no two threads ever write the same element.
#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "ops/embedding.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

void embedding_cpu(const Tensor& weight, const Tensor& ids, Tensor& y) {
  const int32_t* pid = ids.data<int32_t>();
  const auto* pw = static_cast<const char*>(weight.raw());
  auto* py = static_cast<char*>(y.raw());
  const size_t row_bytes = static_cast<size_t>(weight.dim(1)) * dtype_size(weight.dtype());
  parallel_for(ids.numel(), weight.dim(1), [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p)
      std::memcpy(py + p * row_bytes, pw + pid[p] * row_bytes, row_bytes);
  });
}

// Repeated ids make a row receive several contributions. Instead of atomics (racy order, so
// run-to-run different sums) or sorting, every thread walks all positions in order but only
// touches its own block of columns: each element of dweight is summed by one thread, in
// position order, which gives the same bits on any number of threads. Blocks are whole
// 64-byte lines (16 floats) so threads do not share cache lines.
template <typename T>
void backward_columns(const Tensor& dy, const Tensor& ids, Tensor& dweight) {
  const int32_t* pid = ids.data<int32_t>();
  const T* pdy = dy.data<T>();
  T* pdw = dweight.data<T>();
  const int64_t d = dy.dim(-1), positions = ids.numel();
  constexpr int64_t kBlock = 64 / sizeof(T);
  const int64_t blocks = (d + kBlock - 1) / kBlock;
  parallel_for(blocks, positions * kBlock, [&](int64_t b_lo, int64_t b_hi) {
    const int64_t c0 = b_lo * kBlock, c1 = std::min(d, b_hi * kBlock);
    for (int64_t p = 0; p < positions; ++p) {
      const T* src = pdy + p * d;
      T* dst = pdw + static_cast<int64_t>(pid[p]) * d;
#pragma omp simd
      for (int64_t c = c0; c < c1; ++c) dst[c] += src[c];
    }
  });
}

void embedding_backward_cpu(const Tensor& dy, const Tensor& ids, Tensor& dweight) {
  visit_float(dy.dtype(), "embedding backward",
              [&](auto tag) { backward_columns<decltype(tag)>(dy, ids, dweight); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(embedding_kernel, kCpu, embedding_cpu);
REALMT_REGISTER_KERNEL(embedding_backward_kernel, kCpu, embedding_backward_cpu);

}  // namespace realmt::ops
