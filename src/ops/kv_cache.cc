#include "ops/kv_cache.h"

#include <algorithm>

namespace realmt::ops {

void kv_cache_write(Tensor& cache, const Tensor& packed, int64_t col, int64_t position) {
  check_defined(cache, "kv_cache_write", "cache");
  check_defined(packed, "kv_cache_write", "packed");
  check_same_device(cache, packed, "kv_cache_write");
  REALMT_CHECK(
      cache.rank() == 4 && packed.rank() == 3 && cache.dtype() == packed.dtype() &&
          packed.dim(0) == cache.dim(0),
      "kv_cache_write: cache [N, H, capacity, Dh] and rows [N, Tq, C] needed, got {} and {}", cache,
      packed);
  const int64_t n = cache.dim(0), h = cache.dim(1), cap = cache.dim(2), dh = cache.dim(3),
                tq = packed.dim(1);
  REALMT_CHECK(col >= 0 && col + h * dh <= packed.dim(2),
               "kv_cache_write: columns [{}, {}) outside {}", col, col + h * dh, packed);
  REALMT_CHECK(position >= 0 && position + tq <= cap,
               "kv_cache_write: rows [{}, {}) beyond the capacity {}", position, position + tq,
               cap);
  const int64_t es = static_cast<int64_t>(dtype_size(cache.dtype()));
  KvCopy c{n,
           h,
           tq,
           dh * es,
           col * es,
           tq * packed.dim(2) * es,
           dh * es,
           packed.dim(2) * es,
           position * dh * es,
           h * cap * dh * es,
           cap * dh * es,
           dh * es};
  if (n * h * tq > 0) kv_cache_copy_kernel.get(cache.device())(packed, cache, c);
}

Tensor kv_cache_resize(const Tensor& cache, int64_t length, int64_t capacity) {
  check_defined(cache, "kv_cache_resize", "cache");
  REALMT_CHECK(cache.rank() == 4 && length >= 0 && length <= cache.dim(2) && capacity >= length,
               "kv_cache_resize: {} rows of {} into capacity {}", length, cache, capacity);
  const int64_t n = cache.dim(0), h = cache.dim(1), cap = cache.dim(2), dh = cache.dim(3);
  Tensor out = Tensor::empty({n, h, capacity, dh}, cache.dtype(), cache.device());
  const int64_t es = static_cast<int64_t>(dtype_size(cache.dtype()));
  KvCopy c{n,
           h,
           length,
           dh * es,
           0,
           h * cap * dh * es,
           cap * dh * es,
           dh * es,
           0,
           h * capacity * dh * es,
           capacity * dh * es,
           dh * es};
  if (n * h * length > 0) kv_cache_copy_kernel.get(cache.device())(cache, out, c);
  return out;
}

void gather_rows_(const Tensor& x, const std::vector<int32_t>& rows, int64_t length,
                  Tensor& scratch) {
  check_defined(x, "gather_rows_", "x");
  const int64_t n = static_cast<int64_t>(rows.size()), capacity_rows = x.rank() > 0 ? x.dim(0) : 0;
  REALMT_CHECK(n <= capacity_rows, "gather_rows_: {} rows asked of {}", n, x);
  const bool cache = x.rank() == 4;
  REALMT_CHECK(!cache || (length >= 0 && length <= x.dim(2)),
               "gather_rows_: length {} beyond the capacity of {}", length, x);
  const int64_t es = static_cast<int64_t>(dtype_size(x.dtype()));
  const int64_t row_bytes =
      capacity_rows > 0 ? static_cast<int64_t>(x.nbytes()) / capacity_rows : 0;
  // A row is `blocks` blocks of `block` bytes, `stride` bytes apart.
  const int64_t blocks = cache ? x.dim(1) : 1;
  const int64_t block = cache ? length * x.dim(3) * es : row_bytes;
  const int64_t stride = cache ? x.dim(2) * x.dim(3) * es : row_bytes;
  if (block == 0) return;
  // A source is stable when no move writes it: it lies beyond the new rows or stays in place.
  auto stable = [&](int32_t s) { return s >= n || rows[s] == s; };
  std::vector<int64_t> slot(capacity_rows, -1);  // staged source row -> its scratch slot
  std::vector<ByteBlock> stage, direct, from_scratch;
  int64_t staged = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t s = rows[i];
    REALMT_CHECK(s >= 0 && s < capacity_rows, "gather_rows_: row {} takes row {} outside [0, {})",
                 i, s, capacity_rows);
    if (s == i) continue;
    if (stable(s)) {
      for (int64_t b = 0; b < blocks; ++b)
        direct.push_back({s * row_bytes + b * stride, i * row_bytes + b * stride, block});
      continue;
    }
    if (slot[s] < 0) {
      slot[s] = staged++;
      for (int64_t b = 0; b < blocks; ++b)
        stage.push_back({s * row_bytes + b * stride, (slot[s] * blocks + b) * block, block});
    }
    for (int64_t b = 0; b < blocks; ++b)
      from_scratch.push_back({(slot[s] * blocks + b) * block, i * row_bytes + b * stride, block});
  }
  const auto kernel = kv_cache_blocks_kernel.get(x.device());
  if (staged > 0) {
    const int64_t need = staged * blocks * block;
    if (!scratch.defined() || static_cast<int64_t>(scratch.nbytes()) < need ||
        scratch.device() != x.device())
      // Room for every row of x at its whole capacity, so that a cache whose length grows
      // step by step reorders without ever growing the scratch (no allocation per step).
      scratch = Tensor::empty({std::max<int64_t>(need, static_cast<int64_t>(x.nbytes()))},
                              DType::kU8, x.device());
    kernel(x, scratch, stage);
  }
  if (!direct.empty()) kernel(x, x, direct);
  if (!from_scratch.empty()) kernel(scratch, x, from_scratch);
}

}  // namespace realmt::ops
