// The portable int8 GEMM: the same products as oneDNN's (int8_gemm_onednn.cc) in plain C++,
// parallel over the output's longer side. Each product is summed exactly in 32 bits, so weights
// may use the full 8-bit range (no saturating s16 pairs as in oneDNN's kernels without VNNI).
// Always compiled (tests/ops/int8_gemm_test.cc checks it against oneDNN's); in a build without
// oneDNN (cmake/Dependencies.cmake, REALMT_ONEDNN) it is the int8 GEMM, slower, so that realmt
// builds, and int8 decoding runs, on a machine without libdnnl-dev.
#include <cstdint>

#include "backend/cpu/int8_gemm.h"
#include "core/parallel.h"

namespace realmt::cpu {

namespace {

int32_t dot_u8s8(const uint8_t* a, const int8_t* b, int64_t k) {
  int32_t sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < k; ++i) sum += static_cast<int32_t>(a[i]) * static_cast<int32_t>(b[i]);
  return sum;
}

}  // namespace

void portable_gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda,
                           const int8_t* b, int64_t ldb, int32_t* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  // Split the longer side: decoding steps have few rows and many output columns.
  if (m >= n) {
    parallel_for(m, n * k, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = dot_u8s8(a + i * lda, b + j * ldb, k);
    });
    return;
  }
  parallel_for(n, m * k, [&](int64_t begin, int64_t end) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = begin; j < end; ++j) c[i * ldc + j] = dot_u8s8(a + i * lda, b + j * ldb, k);
  });
}

#if !REALMT_WITH_ONEDNN
void gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const int8_t* b,
                  int64_t ldb, int32_t* c, int64_t ldc) {
  portable_gemm_u8s8s32(m, n, k, a, lda, b, ldb, c, ldc);
}

int int8_weight_limit() { return 127; }

const char* int8_cpu_features() { return "portable (no oneDNN)"; }
#endif

}  // namespace realmt::cpu
