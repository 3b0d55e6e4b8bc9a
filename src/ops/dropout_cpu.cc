// CPU dropout: threads split the Philox blocks (4 numbers per block) of the element range, so
// every block is computed once. The cost is the 10 Philox rounds per 4 elements; the multiply
// is negligible next to them.
#include <algorithm>

#include "core/parallel.h"
#include "core/rng.h"
#include "ops/dropout.h"

namespace realmt::ops {
namespace {

template <typename T>
void dropout_elements(const Tensor& x, const DropoutOptions& o, Tensor& y) {
  const T* px = x.data<T>();
  T* py = y.data<T>();
  const uint64_t n = static_cast<uint64_t>(x.numel());
  const uint64_t first = o.offset, end = o.offset + n;  // stream indices [first, end)
  const uint64_t block0 = first >> 2, blocks = ((end - 1) >> 2) - block0 + 1;
  const uint32_t threshold = dropout_threshold(o.p);
  const T scale = static_cast<T>(1.0 / (1.0 - o.p));
  parallel_for(static_cast<int64_t>(blocks), 64, [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; ++b) {
      const uint64_t block = block0 + static_cast<uint64_t>(b);
      const PhiloxBlock bits = philox4x32_10(o.seed, 0, block);
      // Lane l of the block is stream index 4 * block + l (the mapping of philox_u32); the
      // first and last blocks may be partly outside [first, end) when offset or n is not a
      // multiple of 4.
      const uint64_t i_lo = std::max(first, block * 4), i_hi = std::min(end, block * 4 + 4);
      for (uint64_t i = i_lo; i < i_hi; ++i) {
        const uint64_t e = i - first;
        py[e] = dropout_keep(bits[i & 3], threshold) ? px[e] * scale : T(0);
      }
    }
  });
}

void dropout_cpu(const Tensor& x, const DropoutOptions& o, Tensor& y) {
  visit_float(x.dtype(), "dropout", [&](auto tag) { dropout_elements<decltype(tag)>(x, o, y); });
}

}  // namespace

REALMT_REGISTER_KERNEL(dropout_kernel, kCpu, dropout_cpu);

}  // namespace realmt::ops
