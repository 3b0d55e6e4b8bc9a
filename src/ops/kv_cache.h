// Key/value caches of incremental decoding, [N, H, capacity, Dh] (heads-major, so one head's
// cached rows are contiguous for ops::attention), written in place a step at a time.
//   kv_cache_write(cache, packed, col, position): cache[n, h, position + t, :] =
//       packed[n, t, col + h*Dh : col + (h+1)*Dh] for the Tq rows t of packed [N, Tq, C];
//       position + Tq <= capacity.
//   kv_cache_resize(cache, length, capacity): a new [N, H, capacity, Dh] cache holding rows
//       [0, length) of the old one (growth; capacity >= length).
//   gather_rows_(x, rows, length, scratch): in place, row i of x (axis 0) becomes the old row
//       rows[i], for i < rows.size() <= x.dim(0) (more rows than before when beams widen: x is
//       allocated for the most rows). A rank-4 cache [R, H, capacity, Dh] moves positions
//       [0, length) of axis 2 only; other tensors ([R, S, C] source rows, masks) move whole rows.
//       Rows that keep their place are not copied; a source row that some move overwrites is
//       copied to `scratch` first (a byte buffer on x's device, grown when short and kept by the
//       caller, so steady decoding allocates nothing).
// dtypes: any (bytes are copied). write and gather_rows_ are in place; resize is not.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

void kv_cache_write(Tensor& cache, const Tensor& packed, int64_t col, int64_t position);
Tensor kv_cache_resize(const Tensor& cache, int64_t length, int64_t capacity);
void gather_rows_(const Tensor& x, const std::vector<int32_t>& rows, int64_t length,
                  Tensor& scratch);

// Row copies: `rows` blocks of `bytes` bytes from src + i*src_stride to dst + i*dst_stride
// (byte strides), where block i is (n, h, t) enumerated as i = (n*H + h)*T + t.
struct KvCopy {
  int64_t n, heads, rows_per_head;          // N, H, T
  int64_t bytes;                            // Dh * element size
  int64_t src_offset, src_n, src_h, src_t;  // byte offset and strides of the source
  int64_t dst_offset, dst_n, dst_h, dst_t;  // of the destination
};
REALMT_KERNEL_SLOT(kv_cache_copy_kernel, void(const Tensor& src, Tensor& dst, const KvCopy& c));

// Byte blocks from src's data to dst's data (offsets from raw()); the blocks of one call never
// overlap a block they read.
struct ByteBlock {
  int64_t src, dst, bytes;
};
REALMT_KERNEL_SLOT(kv_cache_blocks_kernel, void(const Tensor& src, const Tensor& dst,
                                                const std::vector<ByteBlock>& blocks));

}  // namespace realmt::ops
