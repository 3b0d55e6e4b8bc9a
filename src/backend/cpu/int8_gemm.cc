#include "backend/cpu/int8_gemm.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/parallel.h"
#include "oneapi/dnnl/dnnl.h"

namespace realmt::cpu {

namespace {

bool has_vnni() {
  static const bool vnni = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
  }();
  return vnni;
}

}  // namespace

void gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const int8_t* b, int64_t ldb,
                  const int32_t* col_offset, int32_t* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  // oneDNN threads with OpenMP's per-thread setting: make it realmt's cpu-threads on this thread
  // (server workers and other callers' threads start with the default, all cores).
  if (omp_get_max_threads() != num_threads()) omp_set_num_threads(num_threads());
  // Row-major C = A[m, k] B^T with B stored [n, k]; offsetc 'R' adds col_offset[j] to column j.
  const dnnl_status_t st = dnnl_gemm_u8s8s32('N', 'T', 'R', m, n, k, 1.0f, a, lda, 0, b, ldb, 0, 0.0f, c, ldc,
                                             col_offset);
  REALMT_CHECK(st == dnnl_success, "oneDNN int8 GEMM {}x{}x{} failed (status {})", m, n, k, static_cast<int>(st));
}

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

int int8_weight_limit() { return has_vnni() ? 127 : 63; }

const char* int8_cpu_features() {
  if (__builtin_cpu_supports("avx512vnni")) return "avx512-vnni";
  if (__builtin_cpu_supports("avxvnni")) return "avx-vnni";
  return __builtin_cpu_supports("avx2") ? "avx2 (no vnni)" : "no avx2";
}

}  // namespace realmt::cpu
