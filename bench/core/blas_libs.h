// The CPU GEMM libraries a benchmark compares, each loaded at run time with its own symbols
// (RTLD_DEEPBIND), so the peak a figure is measured against is the best any of them reaches on
// this CPU and thread count (DESIGN.md, How speed is counted): BLIS, OpenBLAS (pthread and
// OpenMP builds) and oneDNN. A library that is not installed is skipped with a note.
#pragma once

#include <string>
#include <vector>

namespace realmt::bench {

// Row-major C = alpha op(A) op(B) + beta C, the CBLAS argument order.
using Sgemm = void (*)(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                       const float* b, int ldb, float beta, float* c, int ldc);

struct BlasLib {
  std::string name;
  Sgemm sgemm = nullptr;  // nullptr: not available
};

// Loads every library it finds, set to `threads` threads.
std::vector<BlasLib> load_blas_libs(int threads);

struct Peak {
  double gflops = 0;  // best 2048^3 SGEMM rate of any library
  std::string library;
  std::string table;  // "name GFLOP/s" of each library, one line
};
// Median of `reps` 2048^3 SGEMMs per library; the best of them.
Peak measure_sgemm_peak(const std::vector<BlasLib>& libs, int reps = 5);

}  // namespace realmt::bench
