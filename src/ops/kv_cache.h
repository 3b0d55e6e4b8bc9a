// Key/value caches of incremental decoding, [N, H, capacity, Dh] (heads-major, so one head's
// cached rows are contiguous for ops::attention), written in place a step at a time.
//   kv_cache_write(cache, packed, col, position): cache[n, h, position + t, :] =
//       packed[n, t, col + h*Dh : col + (h+1)*Dh] for the Tq rows t of packed [N, Tq, C];
//       position + Tq <= capacity.
//   kv_cache_resize(cache, length, capacity): a new [N, H, capacity, Dh] cache holding rows
//       [0, length) of the old one (growth; capacity >= length).
// dtypes: any floating type (bytes are copied). write is in place; resize is not.
#pragma once

#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

void kv_cache_write(Tensor& cache, const Tensor& packed, int64_t col, int64_t position);
Tensor kv_cache_resize(const Tensor& cache, int64_t length, int64_t capacity);

// Row copies: `rows` blocks of `bytes` bytes from src + i*src_stride to dst + i*dst_stride
// (byte strides), where block i is (n, h, t) enumerated as i = (n*H + h)*T + t.
struct KvCopy {
  int64_t n, heads, rows_per_head;  // N, H, T
  int64_t bytes;                    // Dh * element size
  int64_t src_offset, src_n, src_h, src_t;  // byte offset and strides of the source
  int64_t dst_offset, dst_n, dst_h, dst_t;  // of the destination
};
REALMT_KERNEL_SLOT(kv_cache_copy_kernel, void(const Tensor& src, Tensor& dst, const KvCopy& c));

}  // namespace realmt::ops
