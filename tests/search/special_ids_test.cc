// Beam search and scoring with a model of Marian / Hugging Face conventions (eos 0, unk 1, pad =
// decoder start = the last id; untied tables, output bias): greedy search against an argmax loop
// that starts from the decoder start id and stops at eos 0, n-best scores against the scorer.
#include <gtest/gtest.h>

#include "search/beam_search.h"
#include "search/scorer.h"
#include "tiny_model.h"

namespace realmt::search {
namespace {

constexpr int32_t kEos = 0, kUnk = 1, kPad = 11;  // words 2..10

std::unique_ptr<models::Transformer> marian_model(uint64_t seed) {
  models::ModelConfig c;
  c.vocab_size = 12;
  c.enc_depth = c.dec_depth = 2;
  c.dim_emb = 16;
  c.heads = 2;
  c.dim_ffn = 32;
  c.dropout = 0.0;
  c.admin_init = models::AdminInit::kNone;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      layers::ResidualMode::kNone;
  c.tied_embeddings_all = false;
  c.tied_embeddings = true;
  c.output_bias = true;
  c.positions = layers::Positions::kSinusoidalHalves;
  c.eos_id = kEos;
  c.unk_id = kUnk;
  c.pad_id = c.decoder_start_id = kPad;
  auto m = std::make_unique<models::Transformer>(c);
  m->allocate(Device::cpu());
  m->init(seed);
  // Large output biases for pad and unk: the search must still never produce them.
  float* b = m->params()["output.bias"].value().data<float>();
  b[kPad] = b[kUnk] = 5.0f;
  return m;
}

TEST(SpecialIds, GreedySearchStartsFromTheDecoderStartAndStopsAtEos) {
  const auto model = marian_model(21);
  const std::vector<std::vector<int32_t>> batch{{2}, {3, 4, 5, 6}, {7, 8}};
  SearchOptions o;
  o.beam_size = 1;
  o.max_length_factor = 2;
  o.repeat_ngram = 0;
  const auto got = BeamSearch({model.get()}).search(batch, o);
  graph::NoGradGuard no_grad;
  for (size_t i = 0; i < batch.size(); ++i) {
    std::vector<int32_t> src = batch[i];
    src.push_back(kEos);
    auto state =
        model->start(model->encode(Tensor::from_vector(src, {1, int64_t(src.size())}), {}));
    std::vector<int32_t> want;
    int32_t last = kPad;
    const int64_t limit = o.output_limit(static_cast<int64_t>(src.size()));
    for (int64_t t = 0; t < limit; ++t) {
      const Tensor logp = model->step(state, Tensor::from_vector(std::vector<int32_t>{last}, {1}));
      int32_t best = kEos;
      for (int32_t v = 2; v < kPad && t + 1 < limit; ++v)
        if (logp.at(v) > logp.at(best)) best = v;
      if (best == kEos) break;
      want.push_back(last = best);
    }
    ASSERT_EQ(got[i].size(), 1u);
    EXPECT_EQ(got[i][0].tokens, want) << i;
  }
}

TEST(SpecialIds, NBestMatchesTheScorer) {
  const auto model = marian_model(22);
  const std::vector<std::vector<int32_t>> batch{{2, 3}, {4, 5, 6, 7, 8}};
  SearchOptions o;
  o.beam_size = o.n_best = 4;
  o.allow_unk = true;  // unk (biased up) may then appear; pad still never
  const auto got = BeamSearch({model.get()}).search(batch, o);
  std::vector<std::vector<int32_t>> srcs, tgts;
  bool unk_seen = false;
  for (size_t i = 0; i < batch.size(); ++i)
    for (const Hypothesis& h : got[i]) {
      for (int32_t t : h.tokens) {
        EXPECT_NE(t, kPad);
        EXPECT_NE(t, kEos);
        unk_seen = unk_seen || t == kUnk;
      }
      srcs.push_back(batch[i]);
      tgts.push_back(h.tokens);
    }
  EXPECT_TRUE(unk_seen) << "the biased unk is allowed: some hypothesis should hold it";
  const auto scored = Scorer({model.get()}).score(srcs, tgts, ScoreOptions{});
  size_t j = 0;
  for (size_t i = 0; i < batch.size(); ++i)
    for (const Hypothesis& h : got[i]) EXPECT_NEAR(h.log_prob, scored[j++].log_prob, 1e-4);
}

}  // namespace
}  // namespace realmt::search
