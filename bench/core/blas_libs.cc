#include "blas_libs.h"

#include <dlfcn.h>

#include <cstdio>

#include "bench_util.h"

namespace realmt::bench {

namespace {

using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                            int);
using DnnlSgemm = int (*)(char, char, long, long, long, float, const float*, long, const float*, long, float, float*,
                          long);

// One slot per library: the loaded function lives in a static so the captureless wrappers
// below can reach it.
CblasSgemm g_cblas[3] = {};
DnnlSgemm g_dnnl = nullptr;

template <int I>
void cblas_wrap(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                float beta, float* c, int ldc) {
  g_cblas[I](101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void dnnl_wrap(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
               float beta, float* c, int ldc) {
  g_dnnl(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void* open_first(const std::vector<std::string>& paths, int flags) {
  for (const std::string& p : paths)
    if (void* h = dlopen(p.c_str(), flags)) return h;
  return nullptr;
}

template <int I>
BlasLib load_cblas(const char* name, const std::vector<std::string>& paths, const char* set_threads, int threads) {
  void* h = open_first(paths, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (h) g_cblas[I] = reinterpret_cast<CblasSgemm>(dlsym(h, "cblas_sgemm"));
  if (!h || !g_cblas[I]) {
    std::fprintf(stderr, "note: %s not found (%s); skipped\n", name, paths[0].c_str());
    return {name, nullptr};
  }
  // BLIS takes a long; passing an int in a register is the same on x86-64.
  if (auto fn = reinterpret_cast<void (*)(int)>(dlsym(h, set_threads))) fn(threads);
  return {name, &cblas_wrap<I>};
}

}  // namespace

std::vector<BlasLib> load_blas_libs(int threads) {
  std::vector<BlasLib> libs;
  libs.push_back(load_cblas<0>("blis", {"/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4", "libblis.so.4"},
                               "bli_thread_set_num_threads", threads));
  libs.push_back(load_cblas<1>("openblas-pt",
                               {"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0", "libopenblas.so.0"},
                               "openblas_set_num_threads", threads));
  libs.push_back(load_cblas<2>("openblas-omp", {"/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0"},
                               "openblas_set_num_threads", threads));
  // oneDNN (OpenMP build in Debian) follows the OpenMP thread count of the calling thread.
  void* h = open_first({"libdnnl.so.3", "libdnnl.so.2"}, RTLD_NOW | RTLD_LOCAL);
  if (h) g_dnnl = reinterpret_cast<DnnlSgemm>(dlsym(h, "dnnl_sgemm"));
  if (g_dnnl) libs.push_back({"onednn", &dnnl_wrap});
  else std::fprintf(stderr, "note: onednn not found (libdnnl.so); skipped\n");
  return libs;
}

Peak measure_sgemm_peak(const std::vector<BlasLib>& libs, int reps) {
  const int n = 2048;
  std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n);
  Peak p;
  for (const BlasLib& l : libs) {
    if (!l.sgemm) continue;
    const double s = median_seconds([&] { l.sgemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); },
                                    reps);
    const double g = 2.0 * n * n * n / s / 1e9;
    char cell[64];
    std::snprintf(cell, sizeof cell, "%s%s %.1f", p.table.empty() ? "" : ", ", l.name.c_str(), g);
    p.table += cell;
    if (g > p.gflops) {
      p.gflops = g;
      p.library = l.name;
    }
  }
  return p;
}

}  // namespace realmt::bench
