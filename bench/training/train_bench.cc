// Training throughput and model FLOP utilisation on the CPU, for a d=256 (cpu-small) and a d=512
// (transformer-base) model, on random batches of fixed shape. Prints target tokens/s (padding
// excluded: batches have none) and MFU against the SGEMM peak measured in the same run.
//
// FLOPs a target token: models::training_flops_per_target_token (the formula is in models/flops.h).
//
//   realmt-bench-train [--threads N] [--updates N] [--quick]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../core/bench_util.h"
#include "core/allocator.h"
#include "core/parallel.h"
#include "models/flops.h"
#include "models/transformer.h"
#include "ops/matmul.h"
#include "training/optimizer.h"

namespace {

using namespace realmt;

struct Shape2 {
  const char* name;
  int layers_enc, layers_dec;
  int64_t d, f;
  int heads;
};


}  // namespace

int main(int argc, char** argv) {
  int threads = 2, updates = 4;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--updates") && i + 1 < argc) updates = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--updates N] [--quick]\n", argv[0]);
      return 2;
    }
  }
  set_num_threads(threads);
  // Peak: the best of a few large SGEMMs through the same BLAS on the same threads.
  Tensor a = Tensor::full({2048, 2048}, 0.5), b = Tensor::full({2048, 2048}, 0.25);
  const double peak_s = bench::median_seconds([&] { ops::matmul(a, b); }, 5);
  const double peak = 2.0 * 2048 * 2048 * 2048 / peak_s;
  std::printf("# CPU training, %d threads; SGEMM peak (2048^3) in this run: %.1f GFLOP/s\n", threads, peak / 1e9);
  std::printf("# batch: 32 sentences, S = T = 25 subwords (800 target tokens, no padding), vocab 8000\n");
  std::printf("%-34s %10s %14s %14s %8s %10s\n", "model", "params", "tgt tok/s", "GFLOP/s", "MFU", "peak MB");
  const int64_t vocab = 8000, batch = 32, len = 25;
  const Shape2 shapes[] = {{"d=256 (cpu-small, 3+3, F=1024)", 3, 3, 256, 1024, 4},
                           {"d=512 (transformer-base, 6+6)", 6, 6, 512, 2048, 8}};
  for (const Shape2& m : shapes) {
    if (quick && m.d > 256) continue;
    models::ModelConfig c;
    c.vocab_size = vocab;
    c.enc_depth = m.layers_enc;
    c.dec_depth = m.layers_dec;
    c.dim_emb = m.d;
    c.dim_ffn = m.f;
    c.heads = m.heads;
    c.dropout = 0.1;
    c.admin_init = "closed-form";
    models::Transformer model(c);
    model.allocate(Device::cpu());
    model.init(1);
    training::Optimizer opt(model.params(), {true, 0.9, 0.98, 1e-9});
    Generator gen(3), dropout(4);
    std::vector<int32_t> src(batch * len), tgt(batch * len);
    for (auto& x : src) x = 4 + static_cast<int32_t>(gen.next_u32() % (vocab - 4));
    for (auto& x : tgt) x = 4 + static_cast<int32_t>(gen.next_u32() % (vocab - 4));
    const Tensor ts = Tensor::from_vector(src, {batch, len});
    const Tensor tin = Tensor::from_vector(tgt, {batch, len});
    const Tensor tout = tin;
    allocator_for(Device::cpu()).reset_peak();
    auto update = [&] {
      model.params().zero_grad();
      models::ForwardContext ctx;
      ctx.gen = &dropout;
      const models::LossOutput out = model.loss(ts, tin, tout, 0.1, ctx);
      graph::backward(out.loss);
      opt.step(1e-4, 1.0 / static_cast<double>(out.target_tokens));
    };
    const double s = bench::median_seconds(update, updates, 0.0, updates);
    const double tokens = static_cast<double>(batch * len);
    const double flops = models::training_flops_per_target_token(c, len, len) * tokens / s;
    std::printf("%-34s %9.1fM %14.1f %14.1f %7.1f%% %10.1f\n", m.name, model.params().numel() / 1e6, tokens / s,
                flops / 1e9, 100 * flops / peak, allocator_for(Device::cpu()).stats().peak_allocated_bytes / 1048576.0);
  }
  return 0;
}
