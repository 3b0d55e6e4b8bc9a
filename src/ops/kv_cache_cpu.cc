// CPU cache copies: (n, h) pairs over threads, a memcpy per row.
#include <cstring>

#include "core/parallel.h"
#include "ops/kv_cache.h"

namespace realmt::ops {
namespace {

void copy_cpu(const Tensor& src, Tensor& dst, const KvCopy& c) {
  const char* s = static_cast<const char*>(src.raw());
  char* d = static_cast<char*>(dst.raw());
  parallel_for(c.n * c.heads, c.rows_per_head * c.bytes / 4, [&](int64_t lo, int64_t hi) {
    for (int64_t nh = lo; nh < hi; ++nh) {
      const int64_t n = nh / c.heads, h = nh % c.heads;
      for (int64_t t = 0; t < c.rows_per_head; ++t)
        std::memcpy(d + c.dst_offset + n * c.dst_n + h * c.dst_h + t * c.dst_t,
                    s + c.src_offset + n * c.src_n + h * c.src_h + t * c.src_t, static_cast<size_t>(c.bytes));
    }
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(kv_cache_copy_kernel, kCpu, copy_cpu);

}  // namespace realmt::ops
