// GPU benchmark, one run: cuBLAS GEMM rate per precision, training throughput and MFU of a
// transformer-base and a transformer-big sized model (random data, mixed precision through the
// trainer's own MixedPrecision + Optimizer sequence), and beam-search decoding speed.
//
// GEMM: C = A B at N^3 (default 8192) through ops::matmul (cuBLAS; f32 exact, f32 with TF32
// tensor cores, bf16 and f16 with f32 accumulation); FLOP/s = 2 N^3 / median seconds.
//
// Training throughput = target tokens/s (random batches of fixed shape: no padding, so every
// target token counts), one update = forward + backward + gradient norm + Adam + refresh of the
// compute copy, timed to the host (the loss is read back every update, as the trainer does).
// MFU (models/flops.h) = achieved FLOP/s / peak FLOP/s, peak = the cuBLAS GEMM
// rate of the same precision measured above in this run. FLOPs a target token:
// models::training_flops_per_target_token (formula in models/flops.h; the CPU benchmark uses it
// too).
//
// Decoding: target tokens/s of batched beam search (best hypothesis per sentence, eos
// included), transformer-base sized model with random weights, fixed output length
// (min-length = max-length - 1), encoding included, model creation excluded.
//
// --profile 1: after each training measurement, `updates` more updates with the kernel-call
// profiler on (core/profile.h): time per category and the 15 largest kernel slots, as shares of
// those updates' wall time. Kernels are timed where they are launched, so run it with
// CUDA_LAUNCH_BLOCKING=1 for GPU time per kernel; without it the shares say how much of an update
// the host spends launching (a launch-bound step shows shares near 100% and GEMM time near 0).
//
// The last lines are "RESULT|<what>|<value>|<unit>" rows that tests/device_check.sh collects.
//   realmt-bench-cuda [--gemm-n 8192] [--batch 256] [--len 32] [--updates 5] [--precision bf16]
//                     [--profile 0|1]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../core/bench_util.h"
#include "backend/cuda/cuda_context.h"
#include "core/allocator.h"
#include "core/profile.h"
#include "core/runtime.h"
#include "graph/var.h"
#include "models/flops.h"
#include "ops/cast.h"
#include "ops/matmul.h"
#include "ops/optimizer.h"
#include "search/beam_search.h"
#include "training/mixed_precision.h"
#include "training/optimizer.h"

using namespace realmt;

namespace {

const Device kGpu = Device::cuda(0);

void sync_gpu() { runtime_for(DeviceType::kCuda).synchronize(0); }

std::vector<std::string> g_results;
void result(const std::string& what, double value, const char* unit) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "RESULT|%s|%.4g|%s", what.c_str(), value, unit);
  g_results.push_back(buf);
}

struct ModelShape {
  const char* name;
  int enc, dec;
  int64_t d, f;
  int heads;
};


models::ModelConfig config_of(const ModelShape& m, int64_t vocab, double dropout) {
  models::ModelConfig c;
  c.vocab_size = vocab;
  c.enc_depth = m.enc;
  c.dec_depth = m.dec;
  c.dim_emb = m.d;
  c.dim_ffn = m.f;
  c.heads = m.heads;
  c.dropout = dropout;
  c.admin_init = models::AdminInit::kClosedForm;
  return c;
}

// TFLOP/s of an n^3 GEMM in `dtype` (tf32: f32 with TF32 allowed).
double gemm_tflops(int64_t n, DType dtype, bool tf32) {
  const Tensor a = ops::cast(Tensor::full({n, n}, 0.5, DType::kF32, kGpu), dtype);
  const Tensor b = ops::cast(Tensor::full({n, n}, 0.25, DType::kF32, kGpu), dtype);
  ops::MatmulOptions o;
  o.allow_tf32 = tf32;
  Tensor c = ops::matmul(a, b, o);
  const double s = bench::median_seconds(
      [&] {
        ops::matmul_into(a, b, c, o, 0.0f);
        sync_gpu();
      },
      5, 0.3, 50);
  return 2.0 * n * n * n / s / 1e12;
}

// Runs `update` n times with the profiler on and prints the shares of their wall time.
template <typename F>
void print_profile(const char* name, F&& update, int n) {
  profile_reset();
  profile_enable(true);
  const double t0 = bench::now_seconds();
  for (int i = 0; i < n; ++i) update();
  const double secs = bench::now_seconds() - t0;
  profile_enable(false);
  const ProfileTotals p = profile_snapshot();
  std::printf("  profile %s, %d updates, %.1f ms each:", name, n, 1e3 * secs / n);
  for (int i = 0; i < static_cast<int>(ProfileCategory::kCount); ++i)
    std::printf(" %s %.1f%%", profile_category_name(static_cast<ProfileCategory>(i)),
                100 * p.seconds[i] / secs);
  std::printf(", outside kernels %.1f%%\n", 100 * (secs - p.total()) / secs);
  std::vector<std::pair<double, std::string>> rows;
  for (const auto& [k, v] : p.by_name) rows.emplace_back(v, k);
  std::sort(rows.rbegin(), rows.rend());
  for (size_t i = 0; i < rows.size() && i < 15; ++i)
    std::printf("    %-40s %6.1f%%\n", rows[i].second.c_str(), 100 * rows[i].first / secs);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t gemm_n = 8192, batch = 256, len = 32;
  int updates = 5;
  std::string precision = "bf16";
  bool profile = false;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) return std::fprintf(stderr, "option %s needs a value\n", k.c_str()), 2;
    const char* v = argv[++i];
    if (k == "--gemm-n")
      gemm_n = std::atol(v);
    else if (k == "--batch")
      batch = std::atol(v);
    else if (k == "--len")
      len = std::atol(v);
    else if (k == "--updates")
      updates = std::atoi(v);
    else if (k == "--precision")
      precision = v;
    else if (k == "--profile")
      profile = std::atoi(v) != 0;
    else
      return std::fprintf(
                 stderr,
                 "usage: %s [--gemm-n N] [--batch B] [--len L] [--updates U] [--precision P] "
                 "[--profile 0|1]\n",
                 argv[0]),
             2;
  }
  if (device_count(DeviceType::kCuda) == 0) {
    std::fprintf(stderr, "realmt-bench-cuda: no CUDA device visible\n");
    return 2;
  }
  try {
    const cudaDeviceProp& p = cuda::device_properties(0);
    std::printf("# %s, %.0f GiB, %d SMs, compute capability %d.%d\n", p.name,
                p.totalGlobalMem / 1073741824.0, p.multiProcessorCount, p.major, p.minor);

    // ---- GEMM rate per precision: the MFU peaks.
    std::printf("\n## cuBLAS GEMM %ld^3\n%-6s %12s\n", static_cast<long>(gemm_n), "dtype",
                "TFLOP/s");
    struct GemmCase {
      const char* name;
      DType dtype;
      bool tf32;
    };
    double peak_of[4] = {0, 0, 0, 0};
    const GemmCase gemms[] = {{"f32", DType::kF32, false},
                              {"tf32", DType::kF32, true},
                              {"bf16", DType::kBF16, false},
                              {"f16", DType::kF16, false}};
    for (int i = 0; i < 4; ++i) {
      peak_of[i] = gemm_tflops(gemm_n, gemms[i].dtype, gemms[i].tf32);
      std::printf("%-6s %12.1f\n", gemms[i].name, peak_of[i]);
      result(std::string("GEMM ") + gemms[i].name + " " + std::to_string(gemm_n) + "^3", peak_of[i],
             "TFLOP/s");
    }
    const training::Precision prec = parse_enum<training::Precision>(precision, "--precision");
    const double peak = peak_of[static_cast<int>(prec)] * 1e12;  // Precision's order is the table's

    // ---- Training.
    const int64_t vocab = 32000;
    std::printf(
        "\n## training in %s: batch %ld sentences, S = T = %ld (%ld target tokens, no padding), V "
        "%ld, "
        "dropout 0.1, Adam\n",
        precision.c_str(), static_cast<long>(batch), static_cast<long>(len),
        static_cast<long>(batch * len), static_cast<long>(vocab));
    std::printf("%-32s %9s %14s %10s %8s %12s\n", "model", "params", "tgt tok/s", "TFLOP/s", "MFU",
                "peak GiB");
    const ModelShape shapes[] = {{"transformer-base (6+6, D 512)", 6, 6, 512, 2048, 8},
                                 {"transformer-big (6+6, D 1024)", 6, 6, 1024, 4096, 16}};
    for (const ModelShape& m : shapes) {
      Allocator& mem = allocator_for(kGpu);
      const ops::AllowTf32 tf32(prec == training::Precision::kTf32);
      models::Transformer model(config_of(m, vocab, 0.1));
      model.allocate(kGpu);
      model.init(1);
      training::MixedPrecisionOptions mpo;
      mpo.compute = training::compute_dtype(prec);
      mpo.loss_scaling = prec == training::Precision::kF16;
      training::MixedPrecision mp(model, mpo);
      training::Optimizer opt(model.params(), {});
      Generator gen(3), dropout(4);
      std::vector<int32_t> src(batch * len), tgt(batch * len);
      for (auto& x : src) x = 4 + static_cast<int32_t>(gen.next_u32() % (vocab - 4));
      for (auto& x : tgt) x = 4 + static_cast<int32_t>(gen.next_u32() % (vocab - 4));
      const Tensor ts = Tensor::from_vector(src, {batch, len});
      const Tensor tin = Tensor::from_vector(tgt, {batch, len});
      mem.reset_peak();
      int skipped = 0;
      auto update = [&] {  // the trainer's sequence (training/trainer.cc)
        model.params().zero_grad();
        models::ForwardContext ctx;
        ctx.gen = &dropout;
        const models::LossOutput out = mp.compute_model().loss(ts, tin, tin, 0.1, ctx);
        (void)out.loss.value().item();
        const double loss_scale = mp.loss_scale();
        mp.backward(out.loss, true);
        if (!mp.finish(ops::sum_squares(model.params().grads().flat()))) {
          ++skipped;
          return;
        }
        opt.step(1e-4, 1.0 / (static_cast<double>(out.target_tokens) * loss_scale));
        mp.refresh();
        sync_gpu();
      };
      update();  // warm-up: the caching allocator fills, cuBLAS picks its kernels
      const double s = bench::median_seconds(update, updates, 0.0, updates);
      const double tokens = static_cast<double>(batch * len);
      const double flops =
          models::training_flops_per_target_token(model.config(), len, len) * tokens / s;
      const double gib = mem.stats().peak_allocated_bytes / 1073741824.0;
      std::printf("%-32s %8.1fM %14.0f %10.1f %7.1f%% %12.2f%s\n", m.name,
                  model.params().numel() / 1e6, tokens / s, flops / 1e12, 100 * flops / peak, gib,
                  skipped ? " (f16 overflow skips)" : "");
      const std::string tag = std::string(m.d == 512 ? "base" : "big") + " " + precision;
      result("train " + tag + " tgt tok/s", tokens / s, "tok/s");
      result("train " + tag + " MFU", 100 * flops / peak, "%");
      result("train " + tag + " peak memory", gib, "GiB");
      if (profile) print_profile(m.name, update, updates);
    }

    // ---- Decoding.
    {
      const int beam = 4, sentences = 64;
      const int64_t src_len = 24, out_len = 24;
      models::Transformer model(config_of(shapes[0], vocab, 0.0));
      model.allocate(kGpu);
      model.init(1);
      Generator gen(3);
      std::vector<std::vector<int32_t>> sources(sentences);
      for (auto& s : sources)
        for (int64_t j = 0; j < src_len; ++j)
          s.push_back(4 + static_cast<int32_t>(gen.next_u32() % (vocab - 4)));
      search::SearchOptions o;
      o.beam_size = beam;
      o.max_length = out_len + 1;
      o.min_length = out_len;
      o.max_length_factor = 1000;
      const search::BeamSearch search({&model});
      std::printf(
          "\n## decoding: transformer-base sized, f32, random weights, beam %d, batch %d, source "
          "%ld, "
          "output %ld + eos\n",
          beam, sentences, static_cast<long>(src_len), static_cast<long>(out_len));
      for (bool tf32 : {false, true}) {
        const ops::AllowTf32 scope(tf32);
        search.search({sources[0]}, o);  // warm-up
        const double t0 = bench::now_seconds();
        const auto out = search.search(sources, o);
        sync_gpu();
        const double secs = bench::now_seconds() - t0;
        int64_t tokens = 0;
        for (const auto& h : out) tokens += static_cast<int64_t>(h[0].tokens.size()) + 1;
        std::printf("%-5s %10.0f target tokens/s (%ld tokens in %.2f s)\n", tf32 ? "tf32" : "f32",
                    tokens / secs, static_cast<long>(tokens), secs);
        result(std::string("decode base ") + (tf32 ? "tf32" : "f32") + " beam 4 batch 64",
               tokens / secs, "tok/s");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "realmt-bench-cuda: error: %s\n", e.what());
    return 1;
  }
  std::printf("\n");
  for (const std::string& r : g_results) std::printf("%s\n", r.c_str());
  return 0;
}
