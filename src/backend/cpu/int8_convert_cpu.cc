// The f32 <-> int8 conversions around the int8 GEMM (backend/cpu/int8_gemm.h), one copy per CPU
// level (core/cpu_isa.h).
#include <algorithm>
#include <cmath>

#include "backend/cpu/int8_gemm.h"
#include "core/parallel.h"

namespace realmt::cpu {
REALMT_CPU_KERNELS_BEGIN

void quantize_activations(int64_t m, int64_t k, const float* x, int64_t ldx, uint8_t* q, int64_t ldq,
                          float* inv_row) {
  parallel_for(m, 3 * k, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const float* xi = x + i * ldx;
      uint8_t* qi = q + i * ldq;
      float mx = 0.0f;
#pragma omp simd reduction(max : mx)
      for (int64_t j = 0; j < k; ++j) mx = std::max(mx, std::fabs(xi[j]));
      const float s = mx > 0.0f ? 127.0f / mx : 1.0f;
      inv_row[i] = 1.0f / s;
#pragma omp simd
      for (int64_t j = 0; j < k; ++j) qi[j] = static_cast<uint8_t>(round_to_int(xi[j] * s) + 128);
    }
  });
}

void dequantize_products(int64_t m, int64_t n, const int32_t* c, int64_t ldc, const float* inv_row,
                         const float* inv_col, float* y, int64_t ldy) {
  parallel_for(m, n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int32_t* ci = c + i * ldc;
      float* yi = y + i * ldy;
      const float r = inv_row[i];
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) yi[j] = static_cast<float>(ci[j]) * (r * inv_col[j]);
    }
  });
}

REALMT_CPU_KERNELS_END
}  // namespace realmt::cpu
