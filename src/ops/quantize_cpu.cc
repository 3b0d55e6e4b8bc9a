// CPU int8 kernels: weight rows quantized over threads; products through oneDNN's u8 x s8 GEMM
// (backend/cpu/int8_gemm.h) with the activations quantized per row into scratch tensors.
#include <algorithm>
#include <cmath>

#include "backend/cpu/int8_gemm.h"
#include "core/parallel.h"
#include "ops/quantize.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

void quantize_rows_cpu(const Tensor& w, WeightLayout layout, QuantizedWeight& out) {
  const bool rows_out = layout == WeightLayout::kRowsOut;
  const int64_t n = out.rows(), k = out.cols();
  const float* src = w.data<float>();
  int8_t* q = out.values.data<int8_t>();
  float* inv = out.inv_scales.data<float>();
  int32_t* sums = out.sums.data<int32_t>();
  const float limit = static_cast<float>(cpu::int8_weight_limit());
  // Element (n, k) of the weight in either layout.
  auto at = [&](int64_t r, int64_t c) { return rows_out ? src[r * k + c] : src[c * n + r]; };
  parallel_for(n, 4 * k, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      float mx = 0.0f;
      for (int64_t c = 0; c < k; ++c) mx = std::max(mx, std::fabs(at(r, c)));
      const float scale = mx > 0.0f ? limit / mx : 1.0f;
      inv[r] = 1.0f / scale;
      int32_t sum = 0;
      for (int64_t c = 0; c < k; ++c) {
        const int32_t v = std::clamp(cpu::round_to_int(at(r, c) * scale),
                                     -static_cast<int32_t>(limit), static_cast<int32_t>(limit));
        q[r * k + c] = static_cast<int8_t>(v);
        sum += v;
      }
      sums[r] = sum;
    }
  });
}

void quantized_matmul_cpu(const Tensor& x, const QuantizedWeight& w, Tensor& y) {
  const int64_t k = w.cols(), n = w.rows(), m = x.numel() / k;
  // Scratch from the caching allocator: reused from step to step, no system allocation.
  Tensor qx = Tensor::empty({m, k}, DType::kU8, x.device());
  Tensor acc = Tensor::empty({m, n}, DType::kI32, x.device());
  Tensor rows =
      Tensor::empty({2, m}, DType::kF32, x.device());  // the rows' steps, then their zero points
  float* step = rows.data<float>();
  cpu::quantize_activations(m, k, x.data<float>(), k, qx.data<uint8_t>(), k, step, step + m);
  cpu::gemm_u8s8s32(m, n, k, qx.data<uint8_t>(), k, w.values.data<int8_t>(), k, acc.data<int32_t>(),
                    n);
  cpu::dequantize_products(m, n, acc.data<int32_t>(), n, step, step + m, w.inv_scales.data<float>(),
                           w.sums.data<int32_t>(), y.data<float>(), n);
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(quantize_rows_kernel, kCpu, quantize_rows_cpu);
REALMT_REGISTER_KERNEL(quantized_matmul_kernel, kCpu, quantized_matmul_cpu);

}  // namespace realmt::ops
