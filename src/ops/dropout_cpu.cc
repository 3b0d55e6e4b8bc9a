// CPU dropout: threads take chunks of the element range; each chunk draws its keep flags with
// the vectorised Philox of ops/dropout_mask_cpu.h (the same mask as element-by-element
// philox_u32 calls) and applies them in one vectorised pass.
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "ops/dropout.h"
#include "ops/dropout_mask_cpu.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

constexpr int64_t kChunk = 4096;

template <typename T>
void dropout_elements(const Tensor& x, const DropoutOptions& o, Tensor& y) {
  const T* px = x.data<T>();
  T* py = y.data<T>();
  const int64_t n = x.numel();
  const uint32_t threshold = dropout_threshold(o.p);
  const T scale = static_cast<T>(1.0 / (1.0 - o.p));
  parallel_for((n + kChunk - 1) / kChunk, 16 * kChunk, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<uint8_t> keep_buf;
    keep_buf.resize(kChunk);
    uint8_t* keep = keep_buf.data();
    for (int64_t c = lo; c < hi; ++c) {
      const int64_t e0 = c * kChunk, len = std::min(kChunk, n - e0);
      dropout_keep_flags(o.seed, o.offset + static_cast<uint64_t>(e0), len, threshold, keep);
#pragma omp simd
      for (int64_t e = 0; e < len; ++e) py[e0 + e] = keep[e] ? px[e0 + e] * scale : T(0);
    }
  });
}

void dropout_cpu(const Tensor& x, const DropoutOptions& o, Tensor& y) {
  visit_float(x.dtype(), "dropout", [&](auto tag) { dropout_elements<decltype(tag)>(x, o, y); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(dropout_kernel, kCpu, dropout_cpu);

}  // namespace realmt::ops
