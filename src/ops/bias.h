// Bias helpers for fused linear layers (layers/linear: y = x W + b with the bias written first
// and the GEMM accumulating onto it, beta = 1).
//   fill_rows_(y, b):        y [..., C] (every row) = b [C]                 (in place on y)
//   add_column_sums_(x, out): out [C] += sum over the rows of x [..., C]     (in place on out)
// add_column_sums_ splits the columns over threads and sums every column's rows in order, so
// the result does not depend on the thread count. dtypes: f32/f64 (CPU), + f16/bf16 (CUDA).
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

void fill_rows_(Tensor& y, const Tensor& b);
void add_column_sums_(const Tensor& x, Tensor& out);

// Kernels see x / y as [rows, C].
using FillRowsKernel = void(Tensor& y, const Tensor& b, int64_t rows, int64_t cols);
using ColumnSumsKernel = void(const Tensor& x, Tensor& out, int64_t rows, int64_t cols);
REALMT_KERNEL_SLOT(fill_rows_kernel, FillRowsKernel);
REALMT_KERNEL_SLOT(column_sums_kernel, ColumnSumsKernel);

}  // namespace realmt::ops
