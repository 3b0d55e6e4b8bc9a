#include "ops/quantize.h"

namespace realmt::ops {

namespace {

void check_weight(const QuantizedWeight& w, const char* op) {
  REALMT_CHECK(
      w.defined() && w.values.rank() == 2 && w.values.dtype() == DType::kI8 &&
          w.inv_scales.dtype() == DType::kF32 && w.inv_scales.numel() == w.rows() &&
          w.sums.dtype() == DType::kI32 && w.sums.numel() == w.rows(),
      "{}: a quantized weight (values i8 [N, K], inv_scales f32 [N], sums i32 [N]) is needed", op);
}

}  // namespace

QuantizedWeight quantize_rows(const Tensor& w, WeightLayout layout) {
  check_defined(w, "quantize_rows", "w");
  REALMT_CHECK(w.rank() == 2 && w.dtype() == DType::kF32,
               "quantize_rows: f32 [N, K] or [K, N] weights needed, got {}", w);
  const bool rows_out = layout == WeightLayout::kRowsOut;
  const int64_t n = rows_out ? w.dim(0) : w.dim(1), k = rows_out ? w.dim(1) : w.dim(0);
  QuantizedWeight q;
  q.values = Tensor::empty({n, k}, DType::kI8, w.device());
  q.inv_scales = Tensor::empty({n}, DType::kF32, w.device());
  q.sums = Tensor::empty({n}, DType::kI32, w.device());
  if (n * k > 0) quantize_rows_kernel.get(w.device())(w, layout, q);
  return q;
}

Tensor quantized_matmul(const Tensor& x, const QuantizedWeight& w) {
  check_defined(x, "quantized_matmul", "x");
  check_weight(w, "quantized_matmul");
  check_same_device(x, w.values, "quantized_matmul");
  REALMT_CHECK(x.dtype() == DType::kF32 && x.rank() >= 1 && x.dim(-1) == w.cols(),
               "quantized_matmul: f32 inputs [..., {}] needed for weights {}, got {}", w.cols(),
               w.values, x);
  std::vector<int64_t> dims = x.shape().vec();
  dims.back() = w.rows();
  Tensor y = Tensor::empty(Shape(dims), DType::kF32, x.device());
  if (y.numel() > 0) quantized_matmul_kernel.get(x.device())(x, w, y);
  return y;
}

}  // namespace realmt::ops
