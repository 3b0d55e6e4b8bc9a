// CPU permute. Elements are moved as 1/2/4/8-byte words, so one kernel serves every dtype.
// Two loop nests (see PermutePlan): contiguous rows copied with memcpy (head split/merge,
// any permute that keeps the last axis), and a tiled 2-D transpose between the x-contiguous
// axis and the y-contiguous last axis, in small tiles whose lines of x and y stay in L1
// while they are read and written.
#include <cstring>

#include "core/parallel.h"
#include "ops/permute.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

// 8 x 8: with power-of-two extents all rows of a tile map to the same L1 set, and 8 rows is
// what an 8-way L1 keeps (measured on 4096^2 f32: 32 x 32 tiles were 7x slower).
constexpr int64_t kTile = 8;

// The x offset of y's flat index `flat` over the axes in [0, n_axes) except `skip` (which
// contributes 0), walking from the innermost axis out.
int64_t x_offset(const PermutePlan& p, int64_t flat, int n_axes, int skip) {
  int64_t off = 0;
  for (int a = n_axes - 1; a >= 0; --a) {
    if (a == skip) continue;
    off += (flat % p.dims[a]) * p.x_strides[a];
    flat /= p.dims[a];
  }
  return off;
}

void copy_rows(const char* x, char* y, const PermutePlan& p, size_t elem) {
  const int last = p.rank - 1;
  const int64_t n = p.dims[last];
  const size_t row_bytes = static_cast<size_t>(n) * elem;
  const int64_t rows = p.numel / n;
  parallel_for(rows, n, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r)
      std::memcpy(y + r * row_bytes, x + x_offset(p, r, last, -1) * elem, row_bytes);
  });
}

template <typename W>
void transpose_tiles(const W* x, W* y, const PermutePlan& p) {
  const int last = p.rank - 1, u = p.x_unit;
  const int64_t m = p.dims[u], n = p.dims[last];
  const int64_t xs_n = p.x_strides[last];  // x stride along y's last axis
  int64_t ys_m = 1;                        // y stride along axis u
  for (int a = u + 1; a < p.rank; ++a) ys_m *= p.dims[a];
  const int64_t tm = (m + kTile - 1) / kTile, tn = (n + kTile - 1) / kTile;
  const int64_t batch = p.numel / (m * n);
  // y's offset of a batch index: y is contiguous over dims, so rebuild it axis by axis.
  auto y_offset = [&](int64_t b) {
    int64_t off = 0, stride = 1;
    for (int a = p.rank - 1; a >= 0; --a) {
      const int64_t d = p.dims[a];
      if (a != u && a != last) {
        off += (b % d) * stride;
        b /= d;
      }
      stride *= d;
    }
    return off;
  };
  parallel_for(batch * tm * tn, kTile * kTile, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t b = t / (tm * tn), ti = (t / tn) % tm, tj = t % tn;
      // Batch index b runs over the axes other than u and last, in order.
      int64_t xb = 0, rem = b;
      for (int a = p.rank - 1; a >= 0; --a) {
        if (a == u || a == last) continue;
        xb += (rem % p.dims[a]) * p.x_strides[a];
        rem /= p.dims[a];
      }
      const W* xt = x + xb;
      W* yt = y + y_offset(b);
      const int64_t i1 = std::min(m, (ti + 1) * kTile), j1 = std::min(n, (tj + 1) * kTile);
      for (int64_t j = tj * kTile; j < j1; ++j)
        for (int64_t i = ti * kTile; i < i1; ++i) yt[i * ys_m + j] = xt[i + j * xs_n];
    }
  });
}

void permute_cpu(const Tensor& x, const PermutePlan& p, Tensor& y) {
  const size_t elem = dtype_size(x.dtype());
  const char* px = static_cast<const char*>(x.raw());
  char* py = static_cast<char*>(y.raw());
  if (p.x_strides[p.rank - 1] == 1) return copy_rows(px, py, p, elem);
  switch (elem) {
    case 1:
      return transpose_tiles(reinterpret_cast<const uint8_t*>(px), reinterpret_cast<uint8_t*>(py),
                             p);
    case 2:
      return transpose_tiles(reinterpret_cast<const uint16_t*>(px), reinterpret_cast<uint16_t*>(py),
                             p);
    case 4:
      return transpose_tiles(reinterpret_cast<const uint32_t*>(px), reinterpret_cast<uint32_t*>(py),
                             p);
    case 8:
      return transpose_tiles(reinterpret_cast<const uint64_t*>(px), reinterpret_cast<uint64_t*>(py),
                             p);
  }
  REALMT_ASSERT(false, "permute: element size {}", elem);
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(permute_kernel, kCpu, permute_cpu);

}  // namespace realmt::ops
