// int8 inference: linear weights quantized per output row, activations per row, s32 products
// (backend/cpu/int8_gemm.h, which states the scheme), f32 results. What `--quantize int8` turns on
// (layers::Linear, layers::Embedding, models::Transformer::quantize).
//   quantize_rows(w, layout): w f32 [N, K] (kRowsOut: one output per row, as the tied embedding
//       table [V, D]) or [K, N] (kColumnsOut: x W, as layers::Linear stores W [Din, Dout]) ->
//       values i8 [N, K] with, per output n and L = cpu::int8_weight_limit() (127 with VNNI, 63
//       without: see int8_gemm.h),
//         scale[n] = L / max_k |w[n, k]|  (1 for an all-zero row),  values = round(w scale),
//         inv_scales[n] = 1 / scale[n],  sums[n] = sum_k values[n, k].
//   quantized_matmul(x, w): x f32 [..., K] -> y f32 [..., N], y[m, n] ~= sum_k x[m, k] w[n, k]:
//       every row of x quantized to u8 over its range (cpu::quantize_activations), the products
//       in s32, y = inv_scales[n] (step[m] c[m, n] + zero[m] sums[n]).
// CPU and CUDA (quantize_cuda.cu: the same int8 values, scales and s32 products bit for bit);
// not differentiable; not in place.
#pragma once

#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct QuantizedWeight {
  Tensor values;      // i8 [N, K]
  Tensor inv_scales;  // f32 [N]: w[n, k] ~= values[n, k] * inv_scales[n]
  Tensor sums;        // i32 [N]: sum_k values[n, k] (for the activations' zero points)
  bool defined() const { return values.defined(); }
  int64_t rows() const { return values.dim(0); }  // N, the outputs
  int64_t cols() const { return values.dim(1); }  // K, the inputs
  size_t nbytes() const { return values.nbytes() + inv_scales.nbytes() + sums.nbytes(); }
};

enum class WeightLayout { kRowsOut, kColumnsOut };

QuantizedWeight quantize_rows(const Tensor& w, WeightLayout layout);
Tensor quantized_matmul(const Tensor& x, const QuantizedWeight& w);

// w viewed as [N, K] (kRowsOut) or [K, N] (kColumnsOut); outputs allocated by the caller.
using QuantizeRowsKernel = void(const Tensor& w, WeightLayout layout, QuantizedWeight& out);
// x viewed as [M, K], y as [M, N].
using QuantizedMatmulKernel = void(const Tensor& x, const QuantizedWeight& w, Tensor& y);
REALMT_KERNEL_SLOT(quantize_rows_kernel, QuantizeRowsKernel);
REALMT_KERNEL_SLOT(quantized_matmul_kernel, QuantizedMatmulKernel);

}  // namespace realmt::ops
