// Training is reproducible across runs and thread counts (issue: 6 identical 2-thread runs gave
// 4 different checkpoints). Every reduction of a training step has a fixed order: per-(row,
// head) attention, row-block partials for the epilogue and bias gradients, fixed chunks for
// norms, GEMMs split by 48-aligned row blocks of single-threaded calls (the rows of such a block
// round exactly as in one call). The model is sized so that every kernel of the step splits its
// work over the threads (and no GEMM falls below the 96 rows of the row split).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/parallel.h"
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
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross = residual;
  c.admin_init = "closed-form";
  return c;
}

// Two Adam updates on batches of 40 reversal sequences with dropout on; the parameter bytes.
std::vector<char> train(int threads, const std::string& residual) {
  const int saved = num_threads();
  set_num_threads(threads);
  models::Transformer model(config(residual));
  model.allocate(Device::cpu());
  model.init(11);
  Optimizer opt(model.params(), {false, 0.9, 0.98, 1e-9});
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
    const std::vector<char> a = train(2, residual), b = train(2, residual), one = train(1, residual);
    EXPECT_TRUE(a == b) << residual << ": two 2-thread runs differ";
    EXPECT_TRUE(a == one) << residual << ": 1 and 2 threads differ";
  }
}

}  // namespace
}  // namespace realmt::training
