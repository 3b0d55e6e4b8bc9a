// Data loader benchmark.
//
//   data_loader_bench [--src F --tgt F] [--vocab M.spm] [--threads N] [--epochs E]
//       Loader throughput on real text (default: ../shared/data/l10n-enfr/train.*, a joint
//       8000-piece vocabulary trained on it when --vocab is not given): pairs/s and target
//       tokens/s (subword tokens of the target side, padding excluded, eos included) of
//       encode + batch, mini-batch-words 4000, maxi-batch 100, prefetch on.
//       Beside it, the time a CPU trainer needs for the same batches at 100% of the SGEMM peak
//       measured here: training FLOPs per target token = 6 x P with P the weights touched per
//       token by Transformer-base (6+6 layers, D=512, F=2048) with the benchmark's own vocabulary
//       V as the tied output projection: encoder 6 x (4D^2 + 2DF), decoder 6 x (8D^2 + 2DF),
//       output V x D; 48.1M with the 8000-piece vocabulary (the 48.2M parameters of the training
//       benchmark's transformer-base, less biases and norms). Attention and the source/target
//       length ratio are left out, so the real trainer is slower still and the ratio printed is
//       a lower bound on the loader's margin.
//       Then the share of padding in the batches of one epoch, with and without the maxi-batch
//       length sorting (mini-batch-words 2500, as the quickstart trains).
//   data_loader_bench --big N [--dir D]
//       Writes a synthetic N-pair corpus under D (default $TMPDIR), builds the loader on it,
//       reads 500 batches, prints index time and peak resident memory, deletes the corpus.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "data/batch_generator.h"
#include "data/rng.h"
#include "data/vocab_trainer.h"

extern "C" void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
                            const float* a, int lda, const float* b, int ldb, float beta, float* c,
                            int ldc);

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

double sgemm_gflops() {
  const int n = 1024;
  std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n);
  cblas_sgemm(101, 111, 111, n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n);  // warm-up
  const int reps = 10;
  const auto t = Clock::now();
  for (int i = 0; i < reps; ++i) {
    cblas_sgemm(101, 111, 111, n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n);
  }
  return 2.0 * n * n * double(n) * reps / seconds_since(t) / 1e9;
}

std::string arg(int argc, char** argv, const char* name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], name)) return argv[i + 1];
  }
  return fallback;
}

int run_big(int64_t n, const std::string& dir) {
  using namespace realmt::data;
  const std::string src = dir + "/realmt-big.en", tgt = dir + "/realmt-big.fr";
  auto t = Clock::now();
  {
    // Short synthetic sentences (1-12 words of 3-8 letters): what matters here is the number
    // of lines, since the index costs bytes per line, not per character.
    std::ofstream a(src), b(tgt);
    Rng rng(1);
    std::string la, lb;
    for (int64_t i = 0; i < n; ++i) {
      la.clear(), lb.clear();
      const uint64_t words = 1 + rng.below(12);
      for (uint64_t w = 0; w < words; ++w) {
        const uint64_t len = 3 + rng.below(6);
        for (uint64_t k = 0; k < len; ++k)
          la += char('a' + rng.below(26)), lb += char('a' + rng.below(26));
        la += ' ', lb += ' ';
      }
      la.back() = '\n', lb.back() = '\n';
      a << la;
      b << lb;
    }
  }
  const double gen_s = seconds_since(t);
  const double bytes = double(std::filesystem::file_size(src) + std::filesystem::file_size(tgt));
  VocabTrainOptions vo;
  vo.inputs = {src};
  vo.output = dir + "/realmt-big.spm";
  vo.vocab_size = 500;
  vo.sampled_lines = 20000;
  train_vocab(vo);
  const double rss_before = peak_rss_mb();
  t = Clock::now();
  BatchGeneratorOptions o;
  o.src_path = src, o.tgt_path = tgt, o.vocab_path = vo.output;
  o.mini_batch = 0, o.mini_batch_words = 4000, o.max_length = 100, o.threads = 2;
  {
    BatchGenerator g(o);
    int64_t pairs = 0;
    for (int i = 0; i < 500; ++i) pairs += g.next()->size;
    const double build_s = seconds_since(t);
    std::printf("big corpus: %lld pairs, %.2f GB on disk (written in %.0f s)\n", (long long)n,
                bytes / 1e9, gen_s);
    std::printf("  loader: index + shuffle + first 500 batches (%lld pairs) in %.1f s\n",
                (long long)pairs, build_s);
    std::printf("  peak resident memory: %.0f MB (%.0f MB before the loader was built)\n",
                peak_rss_mb(), rss_before);
    std::printf("  state after 500 batches: %s\n", g.state().c_str());
  }
  std::filesystem::remove(src), std::filesystem::remove(tgt);
  std::filesystem::remove(vo.output), std::filesystem::remove(dir + "/realmt-big.vocab");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace realmt::data;
  const std::string big = arg(argc, argv, "--big", "");
  const char* tmp = std::getenv("TMPDIR");
  if (!big.empty()) return run_big(std::stoll(big), arg(argc, argv, "--dir", tmp ? tmp : "/tmp"));

  const std::string shared = arg(argc, argv, "--shared", REALMT_SOURCE_DIR "/../shared/data");
  BatchGeneratorOptions o;
  o.src_path = arg(argc, argv, "--src", shared + "/l10n-enfr/train.en");
  o.tgt_path = arg(argc, argv, "--tgt", shared + "/l10n-enfr/train.fr");
  if (!std::filesystem::exists(o.src_path)) {
    std::fprintf(stderr, "no corpus at %s: pass --src/--tgt\n", o.src_path.c_str());
    return 2;
  }
  std::string vocab = arg(argc, argv, "--vocab", "");
  const std::string tmpdir =
      (std::filesystem::temp_directory_path() / "realmt-bench-vocab").string();
  if (vocab.empty()) {
    std::filesystem::create_directories(tmpdir);
    VocabTrainOptions vo;
    vo.inputs = {o.src_path, o.tgt_path};
    vo.output = tmpdir + "/bench.spm";
    vo.vocab_size = 8000;
    vo.sampled_lines = 200000;
    train_vocab(vo);
    vocab = vo.output;
  }
  o.vocab_path = vocab;
  o.mini_batch = 0, o.mini_batch_words = 4000, o.maxi_batch = 100, o.max_length = 100;
  const double gflops = sgemm_gflops();
  const double d = 512, f = 2048, v = static_cast<double>(Vocab(vocab).size());
  const double weights = 6 * (4 * d * d + 2 * d * f) + 6 * (8 * d * d + 2 * d * f) + v * d;
  const double flops_per_token = 6.0 * weights;
  std::printf("corpus %s + %s, vocab %s\n", o.src_path.c_str(), o.tgt_path.c_str(), vocab.c_str());
  std::printf(
      "SGEMM peak here: %.1f GFLOP/s -> CPU trainer at 100%% MFU: %.0f target tokens/s "
      "(Transformer-base with this %.0f-piece vocabulary: 6 x %.1fM FLOPs a target token)\n",
      gflops, gflops * 1e9 / flops_per_token, v, weights / 1e6);
  for (int threads : {1, 2}) {
    o.threads = threads;
    auto t = Clock::now();
    BatchGenerator g(o);
    const double index_s = seconds_since(t);
    t = Clock::now();
    int64_t pairs = 0, tgt = 0, src = 0, batches = 0;
    while (auto b = g.next())
      pairs += b->size, tgt += b->tgt_tokens, src += b->src_tokens, ++batches;
    const double s = seconds_since(t);
    const double train_s = double(tgt) * flops_per_token / (gflops * 1e9);
    std::printf(
        "threads %d: index %.2f s; one epoch: %lld batches, %lld pairs in %.2f s = %.0f "
        "pairs/s, %.0f target tokens/s (%.0f src+tgt tokens/s)\n",
        threads, index_s, (long long)batches, (long long)pairs, s, double(pairs) / s,
        double(tgt) / s, double(src + tgt) / s);
    std::printf(
        "  the trainer needs >= %.0f s for the same batches at 100%% MFU: loader is %.0fx "
        "faster than training (goal >= 50x)\n",
        train_s, train_s / s);
  }
  // Padding: the share of the batches' B x S and B x T cells that are padding, with the
  // maxi-batch length sorting (the trainer's default) and without it.
  for (int64_t maxi : {int64_t(100), int64_t(1)}) {
    o.threads = 2;
    o.maxi_batch = maxi;
    o.mini_batch_words = 2500;  // the quickstart's cpu-small.yml
    BatchGenerator g(o);
    int64_t cells_src = 0, cells_tgt = 0, src = 0, tgt = 0;
    while (auto b = g.next()) {
      cells_src += b->size * b->src_len, cells_tgt += b->size * b->tgt_len;
      src += b->src_tokens, tgt += b->tgt_tokens;
    }
    std::printf(
        "padding (mini-batch-words 2500, maxi-batch %lld): source %.1f%%, target %.1f%% of the "
        "batch cells\n",
        (long long)maxi, 100.0 * double(cells_src - src) / double(cells_src),
        100.0 * double(cells_tgt - tgt) / double(cells_tgt));
  }
  std::printf("peak resident memory: %.0f MB\n", peak_rss_mb());
  if (arg(argc, argv, "--vocab", "").empty()) std::filesystem::remove_all(tmpdir);
  return 0;
}
