// The GEMM candidates of the decoder's products, timed on its shapes (M = rows = batch x beam;
// K x N = the weights of transformer-base: Q|K|V 512x1536, output 512x512, FFN 512x2048 and
// 2048x512, vocabulary projection 512x32000), in one run:
//   f32  blas-NT      realmt's BLAS (cpu::gemm) with the weight stored [N, K] (x W^T, as the
//                     tied output projection reads the embedding table)
//   f32  blas-NN      realmt's BLAS with the weight stored [K, N]
//   f32  dnnl-NN      oneDNN's dnnl_sgemm, weight [K, N]
//   int8 dnnl-u8s8    dnnl_gemm_u8s8s32: activations shifted to u8, weights s8 [N, K],
//                     compensation as a column offset
//   int8 dnnl-s8s8    dnnl_gemm_s8s8s32, weights [N, K] (oneDNN does the shift itself)
//   int8 dnnl-u8s8-NN dnnl_gemm_u8s8s32 with the weights [K, N]
// (oneDNN's matmul primitive asks for plain [K, N] weights on AVX2 and runs this same GEMM, so
// it is not a separate candidate here.)
// GFLOP/s = 2 M N K / time (median). CPU time is the process's (all threads), so with a busy
// machine it is the steadier figure; both are printed.
//
//   realmt-bench-gemm-candidates [--threads 2] [--rows 128]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backend/cpu/blas.h"
#include "backend/cpu/int8_gemm.h"
#include "bench_util.h"
#include "core/parallel.h"
#include "oneapi/dnnl/dnnl.h"

using namespace realmt;

namespace {

double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

struct Timing {
  double wall, cpu;
};

Timing time_it(const std::function<void()>& fn) {
  fn();
  std::vector<double> w, c;
  double total = 0;
  while ((w.size() < 5 || total < 0.3) && w.size() < 100) {
    const double c0 = cpu_seconds(), w0 = bench::now_seconds();
    fn();
    w.push_back(bench::now_seconds() - w0);
    c.push_back(cpu_seconds() - c0);
    total += w.back();
  }
  std::sort(w.begin(), w.end());
  std::sort(c.begin(), c.end());
  return {w[w.size() / 2], c[c.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  int64_t m = 128;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (k == "--rows")
      m = std::atol(argv[i + 1]);
    else
      return std::fprintf(stderr, "unknown option %s\n", k.c_str()), 2;
  }
  set_num_threads(threads);
  std::printf(
      "# decoder GEMM candidates, %d threads, M = %ld rows; GFLOP/s by wall / process CPU time\n",
      threads, static_cast<long>(m));
  std::printf("# CPU: %s; int8 weights quantized to +-%d\n", cpu::int8_cpu_features(),
              cpu::int8_weight_limit());
  std::printf("%-12s %-22s %10s %10s\n", "K x N", "candidate", "wall", "cpu");
  const std::vector<std::pair<int64_t, int64_t>> shapes{
      {512, 1536}, {512, 512}, {512, 2048}, {2048, 512}, {512, 32000}};
  for (const auto& [k, n] : shapes) {
    std::vector<float> a(m * k), w(n * k), w_kn(k * n), c(m * n);
    std::vector<uint8_t> au(m * k);
    std::vector<int8_t> as(m * k), wq(n * k), wq_kn(k * n);
    std::vector<int32_t> ci(m * n), comp(n);
    uint32_t s = 7;
    auto rnd = [&] { return (s = s * 1664525u + 1013904223u) >> 8; };
    for (auto& x : a) x = (rnd() % 2001) / 1000.0f - 1.0f;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < k; ++i)
        w_kn[i * n + j] = w[j * k + i] = (rnd() % 2001) / 1000.0f - 1.0f;
    for (int64_t i = 0; i < m * k; ++i) {
      as[i] = static_cast<int8_t>(static_cast<int>(rnd() % 255) - 127);
      au[i] = static_cast<uint8_t>(as[i] + 128);
    }
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < k; ++i)
        wq_kn[i * n + j] = wq[j * k + i] = static_cast<int8_t>(static_cast<int>(rnd() % 127) - 63);
    const double flops = 2.0 * m * n * k;
    auto report = [&](const char* name, const Timing& t) {
      std::printf("%-12s %-22s %10.1f %10.1f\n",
                  (std::to_string(k) + "x" + std::to_string(n)).c_str(), name,
                  flops / t.wall * 1e-9, flops / t.cpu * 1e-9);
    };
    report("f32 blas-NT", time_it([&] {
             cpu::gemm(false, true, m, n, k, 1.0f, a.data(), k, w.data(), k, 0.0f, c.data(), n);
           }));
    report("f32 blas-NN", time_it([&] {
             cpu::gemm(false, false, m, n, k, 1.0f, a.data(), k, w_kn.data(), n, 0.0f, c.data(), n);
           }));
    report("f32 dnnl-NN", time_it([&] {
             dnnl_sgemm('N', 'N', m, n, k, 1.0f, a.data(), k, w_kn.data(), n, 0.0f, c.data(), n);
           }));
    report("int8 dnnl-u8s8", time_it([&] {
             dnnl_gemm_u8s8s32('N', 'T', 'R', m, n, k, 1.0f, au.data(), k, 0, wq.data(), k, 0, 0.0f,
                               ci.data(), n, comp.data());
           }));
    report("int8 dnnl-s8s8", time_it([&] {
             dnnl_gemm_s8s8s32('N', 'T', 'F', m, n, k, 1.0f, as.data(), k, 0, wq.data(), k, 0, 0.0f,
                               ci.data(), n, comp.data());
           }));
    report("int8 dnnl-u8s8-NN", time_it([&] {
             dnnl_gemm_u8s8s32('N', 'N', 'R', m, n, k, 1.0f, au.data(), k, 0, wq_kn.data(), n, 0,
                               0.0f, ci.data(), n, comp.data());
           }));
  }
  return 0;
}
