// CPU GEMM through the BLAS chosen at configure time (REALMT_BLAS in CMakeLists: BLIS or
// OpenBLAS). Row-major C = alpha * op(A) * op(B) + beta * C.
#pragma once

#include <cstdint>

namespace realmt::cpu {

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
          const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
          int64_t ldc);

// "blis" or "openblas": what this build links.
const char* blas_name();
// Makes the BLAS use n threads (called by set_num_threads users through cpu-threads).
void blas_set_threads(int n);

}  // namespace realmt::cpu
