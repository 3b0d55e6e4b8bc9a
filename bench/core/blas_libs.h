// The CPU GEMM libraries a benchmark compares, each loaded at run time with its own symbols
// (RTLD_DEEPBIND), so the peak a figure is measured against is the best any of them reaches on
// this CPU and thread count (how bench/RESULTS.md counts speed): BLIS, OpenBLAS (pthread and
// OpenMP builds) and oneDNN. A library that is not installed is skipped with a note.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace realmt::bench {

// Row-major C = alpha op(A) op(B) + beta C, the CBLAS argument order.
using Sgemm = void (*)(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
                       int lda, const float* b, int ldb, float beta, float* c, int ldc);

struct BlasLib {
  std::string name;
  Sgemm sgemm = nullptr;  // nullptr: not available
};

// The libraries a benchmark can load, in a fixed order: blis, openblas-pt, openblas-omp, onednn.
const std::vector<std::string>& blas_lib_names();
// Loads one library (by name) set to `threads` threads; sgemm is nullptr when it is missing.
BlasLib load_blas_lib(const std::string& name, int threads);

// Runs fn in a child process and returns what it returns (NaN when the child fails). A library's
// worker threads (OpenBLAS's pthreads spin for a while after each call) then cannot slow down
// what the parent measures next, nor can two libraries' pools meet in one process.
std::vector<double> in_child(const std::function<std::vector<double>()>& fn);

struct Peak {
  double gflops = 0;  // best 2048^3 SGEMM rate of any library
  std::string library;
  std::string table;  // "name GFLOP/s" of each library, one line
};
// Median of `reps` 2048^3 SGEMMs per library, each library in its own child process; the best.
Peak measure_sgemm_peak(int threads, int reps = 5);

}  // namespace realmt::bench
