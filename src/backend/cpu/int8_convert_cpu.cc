// The f32 <-> int8 conversions around the int8 GEMM (backend/cpu/int8_gemm.h, which states the
// scheme), one copy per CPU level (core/cpu_isa.h).
#include <algorithm>
#include <cmath>

#include "backend/cpu/int8_gemm.h"
#include "core/parallel.h"

namespace realmt::cpu {
REALMT_CPU_KERNELS_BEGIN

void quantize_activations(int64_t m, int64_t k, const float* x, int64_t ldx, uint8_t* q,
                          int64_t ldq, float* step, float* zero) {
  parallel_for(m, 3 * k, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const float* xi = x + i * ldx;
      uint8_t* qi = q + i * ldq;
      float mn = 0.0f, mx = 0.0f;
#pragma omp simd reduction(min : mn) reduction(max : mx)
      for (int64_t j = 0; j < k; ++j) {
        mn = std::min(mn, xi[j]);
        mx = std::max(mx, xi[j]);
      }
      const float s = mx > mn ? 255.0f / (mx - mn) : 1.0f;
      step[i] = 1.0f / s;
      zero[i] = mn;
      // (x - mn) s is in [0, 255] up to rounding; the min keeps a 255.00002 from wrapping to 0.
#pragma omp simd
      for (int64_t j = 0; j < k; ++j)
        qi[j] = static_cast<uint8_t>(std::min(round_to_int((xi[j] - mn) * s), 255));
    }
  });
}

void dequantize_products(int64_t m, int64_t n, const int32_t* c, int64_t ldc, const float* step,
                         const float* zero, const float* inv_col, const int32_t* col_sum, float* y,
                         int64_t ldy) {
  parallel_for(m, 2 * n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int32_t* ci = c + i * ldc;
      float* yi = y + i * ldy;
      const float s = step[i], z = zero[i];
#pragma omp simd
      for (int64_t j = 0; j < n; ++j)
        yi[j] = inv_col[j] * (s * static_cast<float>(ci[j]) + z * static_cast<float>(col_sum[j]));
    }
  });
}

REALMT_CPU_KERNELS_END
}  // namespace realmt::cpu
