// Training is reproducible across runs and thread counts (issue: 6 identical 2-thread runs gave
// 4 different checkpoints). Every reduction of a training step has a fixed order: per-(row,
// head) attention, row-block partials for the epilogue and bias gradients, fixed chunks for
// norms, GEMMs split by 48-aligned row blocks of single-threaded calls (the rows of such a block
// round exactly as in one call). The model is sized so that every kernel of the step splits its
// work over the threads (and no GEMM falls below the 96 rows of the row split).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "backend/cpu/blas.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "graph/var.h"
#include "models/transformer.h"
#include "reverse_task.h"
#include "training/optimizer.h"

namespace realmt::training {
namespace {

models::ModelConfig config(const std::string& residual) {
  models::ModelConfig c;
  c.vocab_size = test::kVocab;
  c.enc_depth = c.dec_depth = 2;
  c.dim_emb = 96;  // every weight-gradient GEMM has >= 96 rows: split by rows (backend/cpu/blas.cc)
  c.heads = 4;
  c.dim_ffn = 384;
  c.dropout = c.dropout_attention = c.dropout_ffn = 0.1;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      parse_enum<layers::ResidualMode>(residual, "residual attention");
  c.admin_init = models::AdminInit::kClosedForm;
  return c;
}

// Two Adam updates on batches of 40 reversal sequences with dropout on; the parameter bytes.
std::vector<char> train(int threads, const std::string& residual) {
  const int saved = num_threads();
  set_num_threads(threads);
  models::Transformer model(config(residual));
  model.allocate(Device::cpu());
  model.init(11);
  Optimizer opt(model.params(), {.beta1 = 0.9, .beta2 = 0.98, .eps = 1e-9});
  Generator data(3), dropout(4);
  for (int u = 0; u < 2; ++u) {
    const test::ReverseBatch b = test::make_reverse_batch(data, 40, 10, 24);
    model.params().zero_grad();
    models::ForwardContext ctx;
    ctx.gen = &dropout;
    const models::LossOutput out = model.loss(b.src, b.tgt_in, b.tgt_out, 0.1, ctx);
    graph::backward(out.loss);
    opt.step(1e-3, 1.0 / static_cast<double>(out.target_tokens));
  }
  set_num_threads(saved);
  const Tensor& flat = model.params().values().flat();
  std::vector<char> bytes(flat.nbytes());
  std::memcpy(bytes.data(), flat.raw(), bytes.size());
  return bytes;
}

TEST(Determinism, TwoThreadRunsAreIdenticalAndEqualOneThread) {
  for (const std::string residual : {"mean", "none"}) {
    const std::vector<char> a = train(2, residual), b = train(2, residual),
                            one = train(1, residual);
    EXPECT_TRUE(a == b) << residual << ": two 2-thread runs differ";
    EXPECT_TRUE(a == one) << residual << ": 1 and 2 threads differ";
  }
}

// Products split by 48-aligned row blocks give the bytes of one call: 2 threads = 1 thread.
// (Products of under 192 rows that would split unevenly, like decoding's 128, keep the library's
// threads and are not covered.)
TEST(Determinism, GemmRowSplitsGiveTheBytesOfOneThread) {
  struct Shape {
    int64_t m, n, k;
    bool ta, tb;
  };
  for (const Shape& s : {Shape{96, 1536, 512, false, false}, Shape{256, 768, 512, false, true},
                         Shape{200, 500, 300, true, true}, Shape{1200, 192, 64, false, false}}) {
    Generator gen(7);
    std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n));
    for (float& x : a) x = gen.uniform() - 0.5f;
    for (float& x : b) x = gen.uniform() - 0.5f;
    auto product = [&](int threads) {
      const int saved = num_threads();
      set_num_threads(threads);
      std::vector<float> c(static_cast<size_t>(s.m * s.n), 0.25f);
      cpu::gemm(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), s.ta ? s.m : s.k, b.data(),
                s.tb ? s.k : s.n, 1.0f, c.data(), s.n);
      set_num_threads(saved);
      return c;
    };
    const std::vector<float> one = product(1), two = product(2);
    EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)), 0)
        << s.m << "x" << s.n << "x" << s.k << " ta " << s.ta << " tb " << s.tb;
  }
}

}  // namespace
}  // namespace realmt::training
