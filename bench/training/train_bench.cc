// Training throughput, model FLOP utilisation and a per-step profile on the CPU, for cpu-small
// (d=256) and transformer-base (d=512) shapes, on random batches of 32 x 25 + 25 subwords
// (vocabulary 8000, no padding), dropout 0.1 on residuals, attention and FFN, label smoothing
// 0.1, Adam. Two variants per model: `plain` (Post-LN without residual attention or ADMIN: the
// architecture bench/training/torch_train.py trains for the PyTorch comparison) and `realformer`
// (running-mean residual attention in all three chains, ADMIN omegas: the toolkit's default).
//
// Target tokens/s count the decoder's 800 target tokens a step. MFU = achieved FLOP/s / the best
// 2048^3 SGEMM rate of any library loaded in the same run (bench/core/blas_libs.h); FLOPs a
// target token: models::training_flops_per_target_token (formula in models/flops.h).
// Allocations a step: blocks the caching allocator had to obtain from the system during the timed
// steps (after warm-up), divided by the steps.
//
//   realmt-bench-train [--threads N] [--updates N] [--model small|base|all] [--variant
//   plain|realformer|all]
//                      [--no-profile]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "../core/bench_util.h"
#include "../core/blas_libs.h"
#include "core/allocator.h"
#include "core/cpu_isa.h"
#include "core/parallel.h"
#include "core/profile.h"
#include "graph/var.h"
#include "models/flops.h"
#include "models/transformer.h"
#include "training/optimizer.h"

namespace {

using namespace realmt;

struct ModelShape {
  const char* name;
  int layers;
  int64_t d, f;
  int heads;
};

struct Result {
  double seconds = 0, tokens_per_s = 0, gflops = 0, allocs_per_step = 0, peak_mb = 0;
  ProfileTotals profile;
  int64_t params = 0;
};

Result run(const ModelShape& m, bool realformer, int updates, bool profile) {
  const int64_t vocab = 8000, batch = 32, len = 25;
  models::ModelConfig c;
  c.vocab_size = vocab;
  c.enc_depth = c.dec_depth = m.layers;
  c.dim_emb = m.d;
  c.dim_ffn = m.f;
  c.heads = m.heads;
  c.dropout = c.dropout_attention = c.dropout_ffn = 0.1;
  const layers::ResidualMode mode =
      realformer ? layers::ResidualMode::kMean : layers::ResidualMode::kNone;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross = mode;
  c.admin_init = realformer ? models::AdminInit::kClosedForm : models::AdminInit::kNone;
  models::Transformer model(c);
  model.allocate(Device::cpu());
  model.init(1);
  training::Optimizer opt(model.params(), {.beta1 = 0.9, .beta2 = 0.98, .eps = 1e-9});
  Generator gen(3), dropout(4);
  std::vector<int32_t> src(batch * len), tgt(batch * len);
  for (auto& x : src) x = 4 + static_cast<int32_t>(gen.next_u32() % (vocab - 4));
  for (auto& x : tgt) x = 4 + static_cast<int32_t>(gen.next_u32() % (vocab - 4));
  const Tensor ts = Tensor::from_vector(src, {batch, len});
  const Tensor tin = Tensor::from_vector(tgt, {batch, len});
  auto update = [&] {
    model.params().zero_grad();
    models::ForwardContext ctx;
    ctx.gen = &dropout;
    const models::LossOutput out = model.loss(ts, tin, tin, 0.1, ctx);
    graph::backward(out.loss);
    opt.step(1e-4, 1.0 / static_cast<double>(out.target_tokens));
  };
  Allocator& mem = allocator_for(Device::cpu());
  for (int i = 0; i < 2; ++i) update();  // warm-up: first shapes, allocator pools
  mem.reset_peak();
  const uint64_t sys0 = mem.stats().num_system_allocs;
  profile_reset();
  profile_enable(profile);
  std::vector<double> times;
  for (int i = 0; i < updates; ++i) {
    const double t0 = bench::now_seconds();
    update();
    times.push_back(bench::now_seconds() - t0);
  }
  profile_enable(false);
  Result r;
  for (double t : times) r.seconds += t;
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  const double tokens = static_cast<double>(batch * len);
  r.tokens_per_s = tokens / median;
  r.gflops = models::training_flops_per_target_token(c, len, len) * tokens / median / 1e9;
  r.allocs_per_step = double(mem.stats().num_system_allocs - sys0) / updates;
  r.peak_mb = mem.stats().peak_allocated_bytes / 1048576.0;
  r.profile = profile_snapshot();
  r.params = model.params().numel();
  return r;
}

void print_profile(const char* name, const Result& r) {
  std::printf("  profile %-28s", name);
  double covered = 0;
  for (int i = 0; i < static_cast<int>(ProfileCategory::kCount); ++i) {
    const double s = r.profile.seconds[i];
    covered += s;
    std::printf(" %s %.1f%%,", profile_category_name(static_cast<ProfileCategory>(i)),
                100 * s / r.seconds);
  }
  std::printf(" other %.1f%%\n", 100 * (r.seconds - covered) / r.seconds);
  if (std::getenv("REALMT_PROFILE_DETAIL")) {
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [k, v] : r.profile.by_name) rows.push_back({v, k});
    std::sort(rows.rbegin(), rows.rend());
    for (const auto& [v, k] : rows)
      std::printf("    %-36s %6.1f%%\n", k.c_str(), 100 * v / r.seconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, updates = 5;
  std::string which = "all", variant = "all";
  bool profile = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--updates") && i + 1 < argc)
      updates = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--model") && i + 1 < argc)
      which = argv[++i];
    else if (!std::strcmp(argv[i], "--variant") && i + 1 < argc)
      variant = argv[++i];
    else if (!std::strcmp(argv[i], "--no-profile"))
      profile = false;
    else if (!std::strcmp(argv[i], "--quick"))
      which = "small", updates = 2;
    else {
      std::fprintf(stderr,
                   "usage: %s [--threads N] [--updates N] [--model small|base|all] [--variant "
                   "plain|realformer|all] "
                   "[--no-profile]\n",
                   argv[0]);
      return 2;
    }
  }
  set_num_threads(threads);
  const bench::Peak peak = bench::measure_sgemm_peak(threads);
  std::printf(
      "# CPU training, %d threads; SGEMM 2048^3 in this run (GFLOP/s): %s; peak %.1f (%s)\n",
      threads, peak.table.c_str(), peak.gflops, peak.library.c_str());
  std::printf("# CPU kernels: %s\n", cpu_isa_summary().c_str());
  std::printf(
      "# batch 32 x (25 + 25) subwords, 800 target tokens a step, vocab 8000, dropout 0.1, ls 0.1, "
      "Adam; "
      "median of %d steps after 2 warm-up steps\n",
      updates);
  std::printf("%-40s %8s %11s %9s %7s %11s %9s\n", "model", "params", "tgt tok/s", "GFLOP/s", "MFU",
              "allocs/step", "peak MB");
  const ModelShape shapes[] = {{"cpu-small (3+3, d=256, F=1024, H=4)", 3, 256, 1024, 4},
                               {"transformer-base (6+6, d=512, F=2048, H=8)", 6, 512, 2048, 8}};
  for (const ModelShape& m : shapes) {
    const bool small = m.d == 256;
    if ((which == "small" && !small) || (which == "base" && small)) continue;
    for (int rf = 0; rf < 2; ++rf) {
      if ((variant == "plain" && rf) || (variant == "realformer" && !rf)) continue;
      const Result r = run(m, rf == 1, updates, profile);
      char name[96];
      std::snprintf(name, sizeof name, "%s %s", small ? "cpu-small" : "base",
                    rf ? "realformer" : "plain");
      std::printf("%-40s %7.1fM %11.1f %9.1f %6.1f%% %11.1f %9.1f\n", name, r.params / 1e6,
                  r.tokens_per_s, r.gflops, 100 * r.gflops / peak.gflops, r.allocs_per_step,
                  r.peak_mb);
      if (profile) print_profile(name, r);
      std::fflush(stdout);
    }
  }
  return 0;
}
