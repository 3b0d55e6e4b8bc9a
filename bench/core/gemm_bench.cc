// GEMM benchmark: BLIS, OpenBLAS-pthread, OpenBLAS-OpenMP and oneDNN (each loaded at run time
// with its own symbols, each in a child process: bench/core/blas_libs.h) and realmt's
// ops::matmul (the BLAS this build links, REALMT_BLAS), on the GEMMs of a transformer-base
// training step (800 tokens; W [Din, Dout]: forward x W, backward dY W^T and X^T dY) and of
// decoding, f32, on `--threads` threads. Prints GFLOP/s and the ratio to the peak measured in
// the same run (the best large square SGEMM of any library).
//   realmt-bench-gemm [--threads N] [--quick]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/blas.h"
#include "bench_util.h"
#include "blas_libs.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "ops/matmul.h"

namespace {

struct GemmShapeCase {
  const char* what;
  int m, n, k;
  bool trans_a, trans_b;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace realmt;
  int threads = 2;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--quick]\n", argv[0]);
      return 2;
    }
  }
  set_num_threads(threads);
  const std::vector<GemmShapeCase> cases = {
      {"peak: square 2048", 2048, 2048, 2048, false, false},
      {"train fwd: Q|K|V (800 tok, D=512)", 800, 1536, 512, false, false},
      {"train fwd: out proj / cross q", 800, 512, 512, false, false},
      {"train fwd: FFN up (F=2048)", 800, 2048, 512, false, false},
      {"train fwd: FFN down", 800, 512, 2048, false, false},
      {"train fwd: output proj (V=8000)", 800, 8000, 512, false, true},
      {"train bwd dX: Q|K|V", 800, 512, 1536, false, true},
      {"train bwd dW: Q|K|V", 512, 1536, 800, true, false},
      {"train bwd dX: FFN up", 800, 512, 2048, false, true},
      {"train bwd dW: FFN up", 512, 2048, 800, true, false},
      {"train bwd dX: FFN down", 800, 2048, 512, false, true},
      {"train bwd dW: FFN down", 2048, 512, 800, true, false},
      {"train bwd dE: output proj", 8000, 512, 800, true, false},
      {"decode: M=128 (32 sent x beam 4), D=512", 128, 512, 512, false, false},
      {"decode: M=128, FFN up", 128, 2048, 512, false, false},
      {"decode: M=128, output proj V=32000", 128, 32000, 512, false, true},
      {"decode: M=16, D=512", 16, 512, 512, false, false},
  };

  std::printf(
      "# GEMM f32, %d threads; realmt links %s. GFLOP/s = 2MNK / median time; each library in its "
      "own\n"
      "# child process (no thread pool of one library left spinning while another is timed).\n",
      threads, cpu::blas_name());
  std::printf("%-42s %8s", "shape (M x N x K)", "");
  for (const std::string& name : bench::blas_lib_names()) std::printf(" %12s", name.c_str());
  std::printf(" %12s\n", "ops::matmul");
  std::vector<std::vector<double>> rates(cases.size());
  auto run_cases = [&](const bench::Sgemm& sgemm, bool realmt) {
    std::vector<double> out;
    Generator gen(1);
    for (const auto& c : cases) {
      if (quick && c.m * double(c.n) * c.k > 5e9) {
        out.push_back(0);
        continue;
      }
      std::vector<float> a(size_t(c.m) * c.k), b(size_t(c.k) * c.n), o(size_t(c.m) * c.n);
      for (auto& x : a) x = gen.uniform() - 0.5f;
      for (auto& x : b) x = gen.uniform() - 0.5f;
      const int lda = c.trans_a ? c.m : c.k, ldb = c.trans_b ? c.k : c.n;
      double s;
      if (realmt) {
        const Tensor ta = Tensor::from_vector(a, c.trans_a ? Shape{c.k, c.m} : Shape{c.m, c.k});
        const Tensor tb = Tensor::from_vector(b, c.trans_b ? Shape{c.n, c.k} : Shape{c.k, c.n});
        s = bench::median_seconds(
            [&] { ops::matmul(ta, tb, {.trans_a = c.trans_a, .trans_b = c.trans_b}); });
      } else {
        s = bench::median_seconds([&] {
          sgemm(c.trans_a, c.trans_b, c.m, c.n, c.k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f,
                o.data(), c.n);
        });
      }
      out.push_back(2.0 * c.m * c.n * c.k / s / 1e9);
    }
    return out;
  };
  std::vector<std::vector<double>> per_lib;
  for (const std::string& name : bench::blas_lib_names())
    per_lib.push_back(bench::in_child([&] {
      const bench::BlasLib l = bench::load_blas_lib(name, threads);
      return l.sgemm ? run_cases(l.sgemm, false) : std::vector<double>{};
    }));
  per_lib.push_back(bench::in_child([&] { return run_cases(nullptr, true); }));
  double peak = 0;
  for (size_t ci = 0; ci < cases.size(); ++ci)
    for (const auto& lib : per_lib) {
      rates[ci].push_back(ci < lib.size() ? lib[ci] : 0.0);
      if (ci == 0) peak = std::max(peak, rates[ci].back());
    }
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    if (rates[ci].empty()) continue;
    const auto& c = cases[ci];
    char shape[64];
    std::snprintf(shape, sizeof shape, "%d x %d x %d", c.m, c.n, c.k);
    std::printf("%-42s %-20s\n", c.what, shape);
    std::printf("%-42s %8s", "  GFLOP/s", "");
    for (double r : rates[ci]) std::printf(" %12.1f", r);
    std::printf("\n%-42s %8s", "  ratio to peak", "");
    for (double r : rates[ci]) std::printf(" %12.2f", peak > 0 ? r / peak : 0.0);
    std::printf("\n");
  }
  std::printf("# peak (best square 2048 SGEMM in this run): %.1f GFLOP/s\n", peak);
  return 0;
}
