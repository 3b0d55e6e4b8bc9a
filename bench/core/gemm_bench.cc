// GEMM benchmark: BLIS, OpenBLAS-pthread and OpenBLAS-OpenMP (each loaded at run time with its
// own symbols) and
// realmt's ops::matmul (the BLAS this build links, REALMT_BLAS), on transformer training and
// decoding shapes, f32, on `--threads` threads. Prints GFLOP/s and the ratio to the peak
// measured in the same run (the best large square SGEMM of any library).
//   realmt-bench-gemm [--threads N] [--quick]
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/blas.h"
#include "bench_util.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "ops/matmul.h"

namespace {

using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                       float*, int);
struct Blas {
  std::string name;
  Sgemm sgemm = nullptr;
};

// RTLD_DEEPBIND: each library resolves its own internal BLAS symbols, even though both export
// the same names (and one of them is also linked into realmt_core).
Blas load(const std::string& name, const std::vector<std::string>& paths, const char* set_threads, int threads) {
  for (const std::string& p : paths) {
    void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) continue;
    Blas b{name, reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"))};
    if (auto fn = reinterpret_cast<void (*)(int)>(dlsym(h, set_threads))) fn(threads);
    if (b.sgemm) return b;
  }
  std::fprintf(stderr, "note: %s not found (%s); skipped\n", name.c_str(), paths[0].c_str());
  return {name, nullptr};
}

struct GemmShapeCase {
  const char* what;
  int m, n, k;
  bool trans_b;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace realmt;
  int threads = 2;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--quick]\n", argv[0]);
      return 2;
    }
  }
  set_num_threads(threads);
  std::vector<Blas> libs = {
      load("blis", {"/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4", "libblis.so.4"},
           "bli_thread_set_num_threads", threads),
      load("openblas-pt", {"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0", "libopenblas.so.0"},
           "openblas_set_num_threads", threads),
      load("openblas-omp", {"/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0"},
           "openblas_set_num_threads", threads),
  };
  // BLIS reads its thread count from a long; the int-typed call above is fine on x86-64 (register).
  const std::vector<GemmShapeCase> cases = {
      {"peak: square 2048", 2048, 2048, 2048, false},
      {"train: QKV/out proj (4096 tok, D=512)", 4096, 512, 512, true},
      {"train: FFN up (D=512 -> F=2048)", 4096, 2048, 512, true},
      {"train: FFN down (F=2048 -> D=512)", 4096, 512, 2048, true},
      {"train: output proj (V=32000), 1024 tok", 1024, 32000, 512, true},
      {"train big: FFN up (D=1024 -> F=4096)", 4096, 4096, 1024, true},
      {"decode: M=4 (1 sent x beam 4), D=512", 4, 512, 512, true},
      {"decode: M=8, FFN up 512->2048", 8, 2048, 512, true},
      {"decode: M=16, D=512", 16, 512, 512, true},
      {"decode: M=32, FFN up 512->2048", 32, 2048, 512, true},
      {"decode: M=128 (32 sent x beam 4), D=512", 128, 512, 512, true},
      {"decode: M=128, output proj V=32000", 128, 32000, 512, true},
  };
  std::printf("# GEMM f32, %d threads; realmt links %s. GFLOP/s = 2MNK / median time.\n", threads,
              cpu::blas_name());
  std::printf("%-42s %8s", "shape (M x N x K)", "");
  for (auto& l : libs) std::printf(" %10s", l.name.c_str());
  std::printf(" %12s\n", "ops::matmul");
  std::vector<std::vector<double>> rates(cases.size());
  Generator gen(1);
  double peak = 0;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const auto& c = cases[ci];
    if (quick && c.m * double(c.n) * c.k > 5e9) continue;
    std::vector<float> a(size_t(c.m) * c.k), b(size_t(c.k) * c.n), out(size_t(c.m) * c.n);
    for (auto& x : a) x = gen.uniform() - 0.5f;
    for (auto& x : b) x = gen.uniform() - 0.5f;
    const double flops = 2.0 * c.m * c.n * c.k;
    for (auto& l : libs) {
      if (!l.sgemm) {
        rates[ci].push_back(0);
        continue;
      }
      const int ldb = c.trans_b ? c.k : c.n;
      const double s = bench::median_seconds([&] {
        l.sgemm(101, 111, c.trans_b ? 112 : 111, c.m, c.n, c.k, 1.0f, a.data(), c.k, b.data(), ldb, 0.0f,
                out.data(), c.n);
      });
      rates[ci].push_back(flops / s / 1e9);
    }
    Tensor ta = Tensor::from_vector(a, {c.m, c.k});
    Tensor tb = Tensor::from_vector(b, c.trans_b ? Shape{c.n, c.k} : Shape{c.k, c.n});
    const double s = bench::median_seconds([&] { ops::matmul(ta, tb, {false, c.trans_b, 1.0f}); });
    rates[ci].push_back(flops / s / 1e9);
    if (ci == 0)
      for (double r : rates[ci]) peak = std::max(peak, r);
  }
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    if (rates[ci].empty()) continue;
    const auto& c = cases[ci];
    char shape[64];
    std::snprintf(shape, sizeof shape, "%d x %d x %d", c.m, c.n, c.k);
    std::printf("%-42s %-20s\n", c.what, shape);
    std::printf("%-42s %8s", "  GFLOP/s", "");
    for (double r : rates[ci]) std::printf(" %10.1f", r);
    std::printf("\n%-42s %8s", "  ratio to peak", "");
    for (double r : rates[ci]) std::printf(" %10.2f", peak > 0 ? r / peak : 0.0);
    std::printf("\n");
  }
  std::printf("# peak (best square 2048 SGEMM in this run): %.1f GFLOP/s\n", peak);
  return 0;
}
