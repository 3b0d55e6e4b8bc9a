#include "backend/cpu/blas.h"

#include <algorithm>
#include <atomic>

#include "core/parallel.h"

// The CBLAS interface both libraries export, declared here so that no vendor header (and no
// vendor-specific typedef) leaks into the rest of the code.
extern "C" {
enum RealmtCblasOrder { kCblasRowMajor = 101 };
enum RealmtCblasTranspose { kCblasNoTrans = 111, kCblasTrans = 112 };
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha,
                 const double* a, int lda, const double* b, int ldb, double beta, double* c,
                 int ldc);
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

// Small products run on one thread: thread start-up and barriers cost more than a product of
// under ~4 MFLOP gains, and they collapse when the cores are shared.
constexpr double kThreadedFlops = 4e6;
// Larger products are split by rows of op(A) (and C) into one block per thread, each block a
// single-threaded BLAS call, with block boundaries at multiples of kRowAlign rows. OpenBLAS's
// own threading partitions the product by thread count, and its rows then round differently
// with 1 and 2 threads (measured: ~3% of the elements of an 1200 x 192 x 64 product differ);
// a single-threaded call on rows [r0, r1) with r0 a multiple of 48 gives bit for bit the rows of
// the whole product (its M micro-tiles stay aligned), so training gives the same numbers with
// any thread count. Products with fewer than 2 * kRowAlign rows, or under 4 * kRowAlign rows
// that split unevenly (over 15% above the even share), keep the library's threads.
constexpr int64_t kRowAlign = 48;

// The library on one thread for the scope's lifetime.
struct SingleThreadedBlas {
  bool active;
  SingleThreadedBlas() : active(g_applied.load() > 1) {
    if (active) blas_set_threads(1);
  }
  ~SingleThreadedBlas() {
    if (active) blas_set_threads(g_applied.load());
  }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;
};

// The rows of the largest of `blocks` 48-aligned row blocks of m.
int64_t largest_block(int64_t m, int64_t blocks) {
  int64_t largest = 0, r0 = 0;
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t r1 = i + 1 == blocks ? m : (m * (i + 1) / blocks) / kRowAlign * kRowAlign;
    largest = std::max(largest, r1 - r0);
    r0 = r1;
  }
  return largest;
}

template <typename T, typename Call>
void gemm_rows(bool trans_a, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, T* c,
               int64_t ldc, Call&& call) {
  sync_threads();
  const int threads = num_threads();
  const double flops = 2.0 * static_cast<double>(m) * n * k;
  if (threads <= 1 || flops < kThreadedFlops) {
    const SingleThreadedBlas one;
    call(m, a, c);
    return;
  }
  const int64_t blocks = std::min<int64_t>(threads, m / kRowAlign);
  if (blocks < 2 || (m < 4 * kRowAlign && largest_block(m, blocks) * blocks > m * 23 / 20)) {
    // Too few rows to split evenly at 48-row boundaries (decoding's 128 rows, 32 sentences x
    // beam 4, would split 48 + 80): the library's own threads. Splitting by columns instead
    // is not bit for bit one call here (measured), so these products keep OpenBLAS's rounding.
    call(m, a, c);
    return;
  }
  const SingleThreadedBlas one;
  parallel_for(blocks, int64_t(1) << 20, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t r0 = i == 0 ? 0 : (m * i / blocks) / kRowAlign * kRowAlign;
      const int64_t r1 = i + 1 == blocks ? m : (m * (i + 1) / blocks) / kRowAlign * kRowAlign;
      if (r1 > r0) call(r1 - r0, trans_a ? a + r0 : a + r0 * lda, c + r0 * ldc);
    }
  });
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  gemm_rows(trans_a, m, n, k, a, lda, c, ldc, [&](int64_t rows, const float* ab, float* cb) {
    cblas_sgemm(kCblasRowMajor, trans(trans_a), trans(trans_b), int(rows), int(n), int(k), alpha,
                ab, int(lda), b, int(ldb), beta, cb, int(ldc));
  });
}

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
          const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
          int64_t ldc) {
  gemm_rows(trans_a, m, n, k, a, lda, c, ldc, [&](int64_t rows, const double* ab, double* cb) {
    cblas_dgemm(kCblasRowMajor, trans(trans_a), trans(trans_b), int(rows), int(n), int(k), alpha,
                ab, int(lda), b, int(ldb), beta, cb, int(ldc));
  });
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
