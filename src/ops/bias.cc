#include "ops/bias.h"

namespace realmt::ops {

namespace {
void check_row_vector(const Tensor& x, const Tensor& v, const char* op) {
  check_defined(x, op, "x");
  check_defined(v, op, "bias");
  check_same_device(x, v, op);
  REALMT_CHECK(x.rank() >= 1 && v.rank() == 1 && v.dim(0) == x.dim(-1) && v.dtype() == x.dtype(),
               "{}: {} is not a row vector of {}", op, v, x);
}
}  // namespace

void fill_rows_(Tensor& y, const Tensor& b) {
  check_row_vector(y, b, "fill_rows_");
  const int64_t cols = y.dim(-1);
  if (y.numel() > 0) fill_rows_kernel.get(y.device())(y, b, y.numel() / cols, cols);
}

void add_column_sums_(const Tensor& x, Tensor& out) {
  check_row_vector(x, out, "add_column_sums_");
  const int64_t cols = x.dim(-1);
  if (x.numel() > 0) column_sums_kernel.get(x.device())(x, out, x.numel() / cols, cols);
}

}  // namespace realmt::ops
