// Decoding speed: batched beam search on a transformer-base-sized model (6+6 layers, D 512,
// 8 heads, F 2048, V 32000) with random weights and a fixed output length (min-length =
// max-length - 1), with the key/value cache against the same decoder recomputing the whole
// prefix every step, in one run.
//
// Throughput = target tokens/s: tokens of the best hypothesis of every sentence, eos included
// (no padding), as Marian, fairseq and CTranslate2 count; model creation excluded, encoding
// included. Memory = peak resident set size (VmHWM) and the allocator's peak. The GEMM share
// is the time inside the matmul kernel (all GEMMs: projections, attention, output layer) over
// the search time, measured by wrapping the CPU matmul kernel slot.
//
//   realmt-bench-decode [--threads 2] [--beam 4] [--batch 32] [--src-len 24] [--out-len 24]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "core/allocator.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "ops/matmul.h"
#include "search/beam_search.h"

using namespace realmt;

namespace {

double g_gemm_seconds = 0;
int64_t g_gemm_flops = 0;
decltype(ops::matmul_kernel)::Fn g_matmul = nullptr;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void timed_matmul(const Tensor& a, const Tensor& b, Tensor& c, const ops::GemmShape& g) {
  const double t = now();
  g_matmul(a, b, c, g);
  g_gemm_seconds += now() - t;
  g_gemm_flops += 2 * g.batch * g.m * g.n * g.k;
}

long peak_rss_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, beam = 4, batch = 32;
  int64_t src_len = 24, out_len = 24;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const long v = std::strtol(argv[i + 1], nullptr, 10);
    if (k == "--threads")
      threads = static_cast<int>(v);
    else if (k == "--beam")
      beam = static_cast<int>(v);
    else if (k == "--batch")
      batch = static_cast<int>(v);
    else if (k == "--src-len")
      src_len = v;
    else if (k == "--out-len")
      out_len = v;
    else
      return std::fprintf(stderr, "unknown option %s\n", k.c_str()), 2;
  }
  set_num_threads(threads);
  models::ModelConfig c;  // transformer-base
  c.vocab_size = 32000;
  c.dropout = 0.0;
  c.admin_init = "closed-form";
  models::Transformer model(c);
  model.allocate(Device::cpu());
  model.init(1);
  Generator gen(3);
  std::vector<std::vector<int32_t>> sources(batch);
  for (auto& s : sources)
    for (int64_t j = 0; j < src_len; ++j)
      s.push_back(4 + static_cast<int32_t>(gen.next_u32() % (c.vocab_size - 4)));
  search::SearchOptions o;
  o.beam_size = beam;
  o.max_length = out_len + 1;  // every translation: out_len tokens + eos
  o.min_length = out_len;
  o.max_length_factor = 1000;
  const search::BeamSearch search({&model});
  g_matmul = ops::matmul_kernel.get(Device::cpu()).fn;
  ops::matmul_kernel.set(DeviceType::kCpu, &timed_matmul);
  std::printf(
      "decode bench: transformer-base (6+6, D 512, F 2048, V 32000, random weights), %d threads, "
      "beam %d, "
      "batch %d, source %ld tokens, output %ld tokens + eos\n",
      threads, beam, batch, static_cast<long>(src_len), static_cast<long>(out_len));
  std::printf("target tokens = best hypothesis per sentence, eos included\n");
  double tps_of[2] = {0, 0};
  for (bool cache : {true, false}) {
    o.use_cache = cache;
    search.search({sources[0]}, o);  // warm-up (allocator, BLAS buffers)
    g_gemm_seconds = 0;
    g_gemm_flops = 0;
    const double t = now();
    const auto out = search.search(sources, o);
    const double secs = now() - t;
    int64_t tokens = 0;
    for (const auto& h : out) tokens += static_cast<int64_t>(h[0].tokens.size()) + 1;
    const double tps = tokens / secs;
    tps_of[cache ? 0 : 1] = tps;
    std::printf(
        "%-10s %7.1f target tokens/s  (%ld tokens in %.2f s)  GEMM %.1f%% of the time (%.1f "
        "GFLOP/s in GEMM)\n",
        cache ? "kv-cache" : "no-cache", tps, static_cast<long>(tokens), secs,
        100 * g_gemm_seconds / secs, g_gemm_flops / g_gemm_seconds * 1e-9);
  }
  const AllocatorStats st = allocator_for(Device::cpu()).stats();
  std::printf("kv-cache / no-cache: %.2fx; peak RSS %.0f MB, allocator peak %.0f MB\n",
              tps_of[0] / tps_of[1], peak_rss_kb() / 1024.0, st.peak_allocated_bytes / 1048576.0);
  return 0;
}
