// Decoding speed: batched beam search on a transformer-base-sized model (6+6 layers, D 512,
// 8 heads, F 2048, V 32000) with random weights and a fixed output length (min-length =
// max-length - 1), f32 or int8 (--quantize int8), optionally against the same decoder
// recomputing the whole prefix every step (--baseline), in one run. The model is made in memory,
// or (--model PATH) loaded from a checkpoint as realmt-translate loads it (int8: each weight
// quantized as it is read; a converted model too, realmt-convert); --write-model PATH writes the
// random model as a checkpoint and exits.
//
// Throughput = target tokens/s: tokens of the best hypothesis of every sentence, eos included
// (no padding), as Marian, fairseq and CTranslate2 count; model creation excluded, encoding
// included; the median of --repeats timed searches after one untimed warm-up search of the same
// batch. Memory = peak resident set size (VmHWM) of the process, of the model's creation or
// loading (and quantization) and of the decoding after it (VmHWM reset through
// /proc/self/clear_refs), and the allocator's peak. Allocations: the caching allocator's system
// allocations (blocks obtained from the OS) and allocate() calls per step of the last timed search;
// after the first steps a step should make no system allocation. --profile prints where a step's
// time goes by kind (core/profile.h: GEMM, attention, layer norm, copies, ...). The last line,
// "RESULT ...", is for bench/search/run_peers.sh.
//
//   realmt-bench-decode [--threads 2] [--beam 4] [--batch 32] [--src-len 16] [--out-len 16]
//                       [--repeats 3] [--quantize none|int8] [--baseline 0|1] [--profile 0|1]
//                       [--model PATH | --write-model PATH]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "backend/cpu/int8_gemm.h"
#include "core/allocator.h"
#include "core/cpu_isa.h"
#include "core/parallel.h"
#include "core/profile.h"
#include "core/rng.h"
#include "models/checkpoint.h"
#include "search/beam_search.h"
#include "search/model_loader.h"

using namespace realmt;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so that the next reading is the peak since.
bool reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return f.good();
}

long peak_rss_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

struct Run {
  double seconds = 0;
  int64_t tokens = 0;
};

Run timed_search(const search::BeamSearch& search, const std::vector<std::vector<int32_t>>& sources,
                 const search::SearchOptions& o) {
  const double t = now();
  const auto out = search.search(sources, o);
  Run r;
  r.seconds = now() - t;
  for (const auto& h : out) r.tokens += static_cast<int64_t>(h[0].tokens.size()) + 1;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, beam = 4, batch = 32, repeats = 3;
  int64_t src_len = 16, out_len = 16;
  bool baseline = false, profile = false;
  std::string quantize = "none", model_path, write_model;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--threads")
      threads = std::atoi(v);
    else if (k == "--beam")
      beam = std::atoi(v);
    else if (k == "--batch")
      batch = std::atoi(v);
    else if (k == "--src-len")
      src_len = std::atol(v);
    else if (k == "--out-len")
      out_len = std::atol(v);
    else if (k == "--repeats")
      repeats = std::max(1, std::atoi(v));
    else if (k == "--quantize")
      quantize = v;
    else if (k == "--baseline")
      baseline = std::atoi(v) != 0;
    else if (k == "--profile")
      profile = std::atoi(v) != 0;
    else if (k == "--model")
      model_path = v;
    else if (k == "--write-model")
      write_model = v;
    else
      return std::fprintf(stderr, "unknown option %s\n", k.c_str()), 2;
  }
  if (quantize != "none" && quantize != "int8")
    return std::fprintf(stderr, "--quantize none|int8\n"), 2;
  set_num_threads(threads);
  models::ModelConfig c;  // transformer-base
  c.vocab_size = 32000;
  c.dropout = 0.0;
  c.admin_init = models::AdminInit::kClosedForm;
  std::unique_ptr<models::Transformer> owned;
  if (model_path.empty()) {
    owned = std::make_unique<models::Transformer>(c);
    owned->allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
    owned->init(1);
    allocator_for(Device::cpu()).release_cached();  // initialisation temporaries
    if (!write_model.empty()) {
      models::save_parameters(write_model, owned->params(), {{models::kConfigKey, c.to_yaml()}});
      std::printf("wrote the random transformer-base model to %s\n", write_model.c_str());
      return 0;
    }
    if (quantize == "int8") owned->quantize();
  } else {
    owned =
        search::load_model(model_path, Device::cpu(),
                           quantize == "int8" ? search::Quantize::kInt8 : search::Quantize::kNone);
    c = owned->config();
  }
  const models::Transformer& model = *owned;
  const long load_rss_kb = peak_rss_kb();  // model creation or loading (and quantization) included
  const bool reset = reset_peak_rss();
  Generator gen(3);
  std::vector<std::vector<int32_t>> sources(batch);
  // Random ids outside the special ones (a converted model has its own: eos 0, unk 1, pad last).
  auto special = [&c](int32_t id) {
    return id == c.pad_id || id == c.unk_id || id == c.eos_id || id == c.decoder_start_id;
  };
  for (auto& s : sources)
    for (int64_t j = 0; j < src_len; ++j) {
      int32_t id = 0;
      do {
        id = c.realmt_special_ids() ? 4 + static_cast<int32_t>(gen.next_u32() % (c.vocab_size - 4))
                                    : static_cast<int32_t>(gen.next_u32() % c.vocab_size);
      } while (special(id));
      s.push_back(id);
    }
  search::SearchOptions o;
  o.beam_size = beam;
  o.max_length = out_len + 1;  // every translation: out_len tokens + eos
  o.min_length = out_len;
  o.max_length_factor = 1000;
  const search::BeamSearch search({&model});
  std::printf(
      "decode bench: %d+%d layers, D %ld, F %ld, V %ld, weights %s, %s, %d threads, beam %d, "
      "batch %d, source %ld tokens, output %ld tokens + eos; CPU kernels %s; int8 GEMM %s\n",
      c.enc_depth, c.dec_depth, static_cast<long>(c.dim_emb), static_cast<long>(c.dim_ffn),
      static_cast<long>(c.vocab_size),
      model_path.empty() ? "random, made in memory" : ("from " + model_path).c_str(),
      quantize == "int8" ? "int8" : "f32", threads, beam, batch, static_cast<long>(src_len),
      static_cast<long>(out_len), cpu_isa_summary().c_str(), cpu::int8_cpu_features());
  std::printf(
      "target tokens = best hypothesis per sentence, eos included; median of %d runs after a "
      "warm-up\n",
      repeats);

  // Per step of the last timed run: system allocations and allocate() calls.
  std::vector<uint64_t> sys_at, calls_at;
  Allocator& alloc = allocator_for(Device::cpu());
  o.on_step = [&](const search::StepInfo&) {
    const AllocatorStats st = alloc.stats();
    sys_at.push_back(st.num_system_allocs);
    calls_at.push_back(st.num_allocs);
  };
  timed_search(search, sources, o);  // warm-up: allocator pools, BLAS buffers
  std::vector<double> tps;
  Run last;
  ProfileTotals prof;
  for (int r = 0; r < repeats; ++r) {
    sys_at.clear();
    calls_at.clear();
    if (profile) {
      profile_reset();
      profile_enable(true);
    }
    last = timed_search(search, sources, o);
    if (profile) {
      profile_enable(false);
      prof = profile_snapshot();
    }
    tps.push_back(last.tokens / last.seconds);
  }
  std::sort(tps.begin(), tps.end());
  const double median = tps[tps.size() / 2];
  std::printf("kv-cache   %8.1f target tokens/s  (%ld tokens, %.2f s in the last run; runs:",
              median, static_cast<long>(last.tokens), last.seconds);
  for (double x : tps) std::printf(" %.1f", x);
  std::printf(")\n");
  uint64_t sys_late = 0, steps_late = 0;
  for (size_t s = 2; s < sys_at.size(); ++s, ++steps_late) sys_late += sys_at[s] - sys_at[s - 1];
  std::printf("allocations per step (last run, %zu steps): system allocations", sys_at.size());
  for (size_t s = 0; s < sys_at.size(); ++s)
    std::printf(" %lu", static_cast<unsigned long>(s ? sys_at[s] - sys_at[s - 1] : 0));
  std::printf("; after step 2: %lu in %lu steps; allocator calls per step %.0f\n",
              static_cast<unsigned long>(sys_late), static_cast<unsigned long>(steps_late),
              calls_at.size() > 1
                  ? double(calls_at.back() - calls_at.front()) / double(calls_at.size() - 1)
                  : 0.0);
  if (profile) {
    std::printf(
        "profile of the last run by kind (main-thread time inside kernels, %.2f s of %.2f s):\n",
        prof.total(), last.seconds);
    for (int k = 0; k < static_cast<int>(ProfileCategory::kCount); ++k)
      if (prof.calls[k] > 0)
        std::printf("  %-14s %7.1f ms  %5.1f%%  %8lu calls\n",
                    profile_category_name(static_cast<ProfileCategory>(k)), 1e3 * prof.seconds[k],
                    100 * prof.seconds[k] / last.seconds,
                    static_cast<unsigned long>(prof.calls[k]));
  }
  double baseline_tps = 0;
  if (baseline) {
    o.use_cache = false;
    o.on_step = nullptr;
    const Run r = timed_search(search, sources, o);
    baseline_tps = r.tokens / r.seconds;
    std::printf(
        "no-cache   %8.1f target tokens/s  (%ld tokens in %.2f s); kv-cache / no-cache %.2fx\n",
        baseline_tps, static_cast<long>(r.tokens), r.seconds, median / baseline_tps);
  }
  const AllocatorStats st = alloc.stats();
  const double peak_mb = std::max(load_rss_kb, peak_rss_kb()) / 1024.0;
  const double decode_mb = reset ? peak_rss_kb() / 1024.0 : -1.0;
  std::printf(
      "peak RSS %.0f MB (model creation or loading %.0f MB, decoding %.0f MB), allocator peak %.0f "
      "MB\n",
      peak_mb, load_rss_kb / 1024.0, decode_mb, st.peak_allocated_bytes / 1048576.0);
  std::printf(
      "RESULT mode=%s tokens_per_s=%.2f peak_rss_mb=%.1f decode_peak_rss_mb=%.1f "
      "system_allocs_after_step2=%lu\n",
      quantize == "int8" ? "int8" : "f32", median, peak_mb, decode_mb,
      static_cast<unsigned long>(sys_late));
  return 0;
}
