// CPU bias helpers. Column sums: threads take column ranges (multiples of 16 columns) and add
// every row in order, so each column's sum has one fixed order whatever the thread count.
#include <algorithm>
#include <cstring>

#include "core/parallel.h"
#include "ops/bias.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
void fill_rows(Tensor& y, const Tensor& b, int64_t rows, int64_t cols) {
  T* py = y.data<T>();
  const T* pb = b.data<T>();
  parallel_for(rows, cols, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) std::memcpy(py + r * cols, pb, sizeof(T) * cols);
  });
}

template <typename T>
void column_sums(const Tensor& x, Tensor& out, int64_t rows, int64_t cols) {
  const T* px = x.data<T>();
  T* po = out.data<T>();
  constexpr int64_t kTile = 16;
  const int64_t tiles = (cols + kTile - 1) / kTile;
  parallel_for(tiles, rows * kTile, [&](int64_t lo, int64_t hi) {
    const int64_t c0 = lo * kTile, c1 = std::min(cols, hi * kTile);
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = px + r * cols;
#pragma omp simd
      for (int64_t c = c0; c < c1; ++c) po[c] += row[c];
    }
  });
}

void fill_rows_cpu(Tensor& y, const Tensor& b, int64_t rows, int64_t cols) {
  visit_float(y.dtype(), "fill_rows_",
              [&](auto tag) { fill_rows<decltype(tag)>(y, b, rows, cols); });
}
void column_sums_cpu(const Tensor& x, Tensor& out, int64_t rows, int64_t cols) {
  visit_float(x.dtype(), "add_column_sums_",
              [&](auto tag) { column_sums<decltype(tag)>(x, out, rows, cols); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(fill_rows_kernel, kCpu, fill_rows_cpu);
REALMT_REGISTER_KERNEL(column_sums_kernel, kCpu, column_sums_cpu);

}  // namespace realmt::ops
