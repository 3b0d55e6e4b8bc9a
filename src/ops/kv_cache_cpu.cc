// CPU cache copies: (n, h) pairs or blocks over threads, a memcpy each.
#include <cstring>

#include "core/parallel.h"
#include "ops/kv_cache.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

void copy_cpu(const Tensor& src, Tensor& dst, const KvCopy& c) {
  const char* s = static_cast<const char*>(src.raw());
  char* d = static_cast<char*>(dst.raw());
  parallel_for(c.n * c.heads, c.rows_per_head * c.bytes / 4, [&](int64_t lo, int64_t hi) {
    for (int64_t nh = lo; nh < hi; ++nh) {
      const int64_t n = nh / c.heads, h = nh % c.heads;
      for (int64_t t = 0; t < c.rows_per_head; ++t)
        std::memcpy(d + c.dst_offset + n * c.dst_n + h * c.dst_h + t * c.dst_t,
                    s + c.src_offset + n * c.src_n + h * c.src_h + t * c.src_t,
                    static_cast<size_t>(c.bytes));
    }
  });
}

void blocks_cpu(const Tensor& src, const Tensor& dst, const std::vector<ByteBlock>& blocks) {
  const char* s = static_cast<const char*>(src.raw());
  char* d = static_cast<char*>(dst.raw());
  const int64_t bytes = blocks.empty() ? 0 : blocks[0].bytes;
  parallel_for(static_cast<int64_t>(blocks.size()), bytes / 4, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      std::memcpy(d + blocks[i].dst, s + blocks[i].src, static_cast<size_t>(blocks[i].bytes));
  });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(kv_cache_copy_kernel, kCpu, copy_cpu);
REALMT_REGISTER_KERNEL(kv_cache_blocks_kernel, kCpu, blocks_cpu);

}  // namespace realmt::ops
