#include "backend/cpu/blas.h"

#include <atomic>

#include "core/parallel.h"

// The CBLAS interface both libraries export, declared here so that no vendor header (and no
// vendor-specific typedef) leaks into the rest of the code.
extern "C" {
enum RealmtCblasOrder { kCblasRowMajor = 101 };
enum RealmtCblasTranspose { kCblasNoTrans = 111, kCblasTrans = 112 };
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a,
                 int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha,
                 const double* a, int lda, const double* b, int ldb, double beta, double* c, int ldc);
#if defined(REALMT_BLAS_BLIS)
void bli_thread_set_num_threads(long n);
#elif defined(REALMT_BLAS_OPENBLAS)
void openblas_set_num_threads(int n);
#endif
}

namespace realmt::cpu {

namespace {
// BLAS threads follow realmt's thread count (cpu-threads); applied lazily on the next GEMM.
std::atomic<int> g_applied{0};
void sync_threads() {
  const int n = num_threads();
  if (g_applied.load(std::memory_order_relaxed) != n) {
    blas_set_threads(n);
    g_applied = n;
  }
}
int trans(bool t) { return t ? kCblasTrans : kCblasNoTrans; }
}  // namespace

// Small products run on one thread: BLIS's threads meet in spin barriers, which cost more than
// a product of under ~4 MFLOP gains, and which collapse when the cores are shared.
constexpr double kThreadedFlops = 4e6;
struct SmallGemmScope {
  bool active;
  explicit SmallGemmScope(double flops) : active(flops < kThreadedFlops && g_applied.load() > 1) {
    if (active) blas_set_threads(1);
  }
  ~SmallGemmScope() {
    if (active) blas_set_threads(g_applied.load());
  }
};

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  sync_threads();
  SmallGemmScope small(2.0 * m * n * k);
  cblas_sgemm(kCblasRowMajor, trans(trans_a), trans(trans_b), int(m), int(n), int(k), alpha, a,
              int(lda), b, int(ldb), beta, c, int(ldc));
}

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  sync_threads();
  SmallGemmScope small(2.0 * m * n * k);
  cblas_dgemm(kCblasRowMajor, trans(trans_a), trans(trans_b), int(m), int(n), int(k), alpha, a,
              int(lda), b, int(ldb), beta, c, int(ldc));
}

const char* blas_name() {
#if defined(REALMT_BLAS_BLIS)
  return "blis";
#else
  return "openblas";
#endif
}

void blas_set_threads(int n) {
#if defined(REALMT_BLAS_BLIS)
  bli_thread_set_num_threads(n);
#elif defined(REALMT_BLAS_OPENBLAS)
  openblas_set_num_threads(n);
#endif
}

}  // namespace realmt::cpu
