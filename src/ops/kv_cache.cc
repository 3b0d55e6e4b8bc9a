#include "ops/kv_cache.h"

namespace realmt::ops {

void kv_cache_write(Tensor& cache, const Tensor& packed, int64_t col, int64_t position) {
  check_defined(cache, "kv_cache_write", "cache");
  check_defined(packed, "kv_cache_write", "packed");
  check_same_device(cache, packed, "kv_cache_write");
  REALMT_CHECK(cache.rank() == 4 && packed.rank() == 3 && cache.dtype() == packed.dtype() &&
                   packed.dim(0) == cache.dim(0),
               "kv_cache_write: cache [N, H, capacity, Dh] and rows [N, Tq, C] needed, got {} and {}", cache, packed);
  const int64_t n = cache.dim(0), h = cache.dim(1), cap = cache.dim(2), dh = cache.dim(3), tq = packed.dim(1);
  REALMT_CHECK(col >= 0 && col + h * dh <= packed.dim(2), "kv_cache_write: columns [{}, {}) outside {}", col,
               col + h * dh, packed);
  REALMT_CHECK(position >= 0 && position + tq <= cap, "kv_cache_write: rows [{}, {}) beyond the capacity {}",
               position, position + tq, cap);
  const int64_t es = static_cast<int64_t>(dtype_size(cache.dtype()));
  KvCopy c{n, h, tq, dh * es,
           col * es, tq * packed.dim(2) * es, dh * es, packed.dim(2) * es,
           position * dh * es, h * cap * dh * es, cap * dh * es, dh * es};
  if (n * h * tq > 0) kv_cache_copy_kernel.get(cache.device())(packed, cache, c);
}

Tensor kv_cache_resize(const Tensor& cache, int64_t length, int64_t capacity) {
  check_defined(cache, "kv_cache_resize", "cache");
  REALMT_CHECK(cache.rank() == 4 && length >= 0 && length <= cache.dim(2) && capacity >= length,
               "kv_cache_resize: {} rows of {} into capacity {}", length, cache, capacity);
  const int64_t n = cache.dim(0), h = cache.dim(1), cap = cache.dim(2), dh = cache.dim(3);
  Tensor out = Tensor::empty({n, h, capacity, dh}, cache.dtype(), cache.device());
  const int64_t es = static_cast<int64_t>(dtype_size(cache.dtype()));
  KvCopy c{n, h, length, dh * es, 0, h * cap * dh * es, cap * dh * es, dh * es,
           0, h * capacity * dh * es, capacity * dh * es, dh * es};
  if (n * h * length > 0) kv_cache_copy_kernel.get(cache.device())(cache, out, c);
  return out;
}

}  // namespace realmt::ops
