#include "blas_libs.h"

#include <dlfcn.h>
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "bench_util.h"

namespace realmt::bench {

namespace {

using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);
using DnnlSgemm = int (*)(char, char, long, long, long, float, const float*, long, const float*,
                          long, float, float*, long);

// One slot per library: the loaded function lives in a static so the captureless wrappers
// below can reach it.
CblasSgemm g_cblas[3] = {};
DnnlSgemm g_dnnl = nullptr;

template <int I>
void cblas_wrap(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda,
                const float* b, int ldb, float beta, float* c, int ldc) {
  g_cblas[I](101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void dnnl_wrap(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda,
               const float* b, int ldb, float beta, float* c, int ldc) {
  g_dnnl(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void* open_first(const std::vector<std::string>& paths, int flags) {
  for (const std::string& p : paths)
    if (void* h = dlopen(p.c_str(), flags)) return h;
  return nullptr;
}

template <int I>
BlasLib load_cblas(const char* name, const std::vector<std::string>& paths, const char* set_threads,
                   int threads) {
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

const std::vector<std::string>& blas_lib_names() {
  static const std::vector<std::string> names = {"blis", "openblas-pt", "openblas-omp", "onednn"};
  return names;
}

BlasLib load_blas_lib(const std::string& name, int threads) {
  if (name == "blis")
    return load_cblas<0>("blis",
                         {"/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4", "libblis.so.4"},
                         "bli_thread_set_num_threads", threads);
  if (name == "openblas-pt")
    return load_cblas<1>(
        "openblas-pt",
        {"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0", "libopenblas.so.0"},
        "openblas_set_num_threads", threads);
  if (name == "openblas-omp")
    return load_cblas<2>("openblas-omp",
                         {"/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0"},
                         "openblas_set_num_threads", threads);
  // oneDNN (OpenMP build in Debian) follows the OpenMP thread count of the calling thread.
  omp_set_num_threads(threads);
  void* h = open_first({"libdnnl.so.3", "libdnnl.so.2"}, RTLD_NOW | RTLD_LOCAL);
  if (h) g_dnnl = reinterpret_cast<DnnlSgemm>(dlsym(h, "dnnl_sgemm"));
  if (g_dnnl) return {"onednn", &dnnl_wrap};
  std::fprintf(stderr, "note: onednn not found (libdnnl.so); skipped\n");
  return {"onednn", nullptr};
}

std::vector<double> in_child(const std::function<std::vector<double>()>& fn) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fd[2];
  if (pipe(fd) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const std::vector<double> v = fn();
    const size_t n = v.size();
    ssize_t ok = write(fd[1], &n, sizeof n);
    if (ok == static_cast<ssize_t>(sizeof n) && n) ok = write(fd[1], v.data(), n * sizeof(double));
    _exit(ok >= 0 ? 0 : 1);
  }
  close(fd[1]);
  std::vector<double> out;
  size_t n = 0;
  if (pid > 0 && read(fd[0], &n, sizeof n) == static_cast<ssize_t>(sizeof n) && n < (1u << 20)) {
    out.resize(n);
    size_t got = 0;
    while (got < n * sizeof(double)) {
      const ssize_t r =
          read(fd[0], reinterpret_cast<char*>(out.data()) + got, n * sizeof(double) - got);
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    if (got != n * sizeof(double)) out.clear();
  }
  close(fd[0]);
  if (pid > 0) waitpid(pid, nullptr, 0);
  return out;
}

Peak measure_sgemm_peak(int threads, int reps) {
  const int n = 2048;
  Peak p;
  for (const std::string& name : blas_lib_names()) {
    const std::vector<double> r = in_child([&] {
      const BlasLib l = load_blas_lib(name, threads);
      if (!l.sgemm) return std::vector<double>{};
      std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n);
      const double s = median_seconds(
          [&] {
            l.sgemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
          },
          reps);
      return std::vector<double>{2.0 * n * n * n / s / 1e9};
    });
    if (r.empty()) continue;
    char cell[64];
    std::snprintf(cell, sizeof cell, "%s%s %.1f", p.table.empty() ? "" : ", ", name.c_str(), r[0]);
    p.table += cell;
    if (r[0] > p.gflops) {
      p.gflops = r[0];
      p.library = name;
    }
  }
  return p;
}

}  // namespace realmt::bench
