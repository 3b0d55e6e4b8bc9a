// realmt-analyze's measures (analysis/attention_stats.h): entropy and JSD against values worked
// out by hand, on hand-made probabilities and on tiny models (uniform attention, padding).
#include "analysis/attention_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "core/parallel.h"
#include "graph/var.h"

namespace realmt::analysis {
namespace {

using models::AttentionChain;

TEST(AttentionStats, EntropyAndJsdByHand) {
  const float a[] = {0.5f, 0.25f, 0.25f};
  EXPECT_DOUBLE_EQ(entropy_bits(a, 3), 1.5);
  const float u[8] = {0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f, 0.125f};
  EXPECT_DOUBLE_EQ(entropy_bits(u, 8), 3.0);  // uniform: log2(n)
  const float one[] = {1.0f, 0.0f, 0.0f};
  EXPECT_DOUBLE_EQ(entropy_bits(one, 3), 0.0);
  const float p[] = {0.7f, 0.2f, 0.1f}, q[] = {0.2f, 0.2f, 0.6f};
  EXPECT_NEAR(entropy_bits(p, 3), 1.1567796494470395, 1e-6);
  EXPECT_NEAR(jsd_bits(p, q, 3), 0.24902249956730638, 1e-6);
  EXPECT_EQ(jsd_bits(p, p, 3), 0.0);  // identical heads: exactly 0
  const float x[] = {1.0f, 0.0f}, y[] = {0.0f, 1.0f}, h[] = {0.5f, 0.5f};
  EXPECT_DOUBLE_EQ(jsd_bits(x, y, 2), 1.0);  // disjoint: the base-2 maximum
  EXPECT_NEAR(jsd_bits(h, x, 2), 0.31127812445913283, 1e-12);
}

TEST(AttentionStats, QuartilesAsNumPy) {
  std::vector<float> v{4, 1, 3, 2};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);  // numpy.percentile([1, 2, 3, 4], 25)
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
}

TEST(AttentionStats, MaskedKeysAndPaddingRowsExcluded) {
  // One sentence of 3 source tokens in a batch padded to 4 keys and 4 queries; 2 layers.
  // Key 3 (padding) carries 0.5 in every row: the measures must not read it.
  AttentionStats s(2, 1, 1);
  s.begin_batch({3}, {1});
  const std::vector<float> l0 = {0.7f, 0.2f, 0.1f, 0.5f, 0.5f, 0.25f, 0.25f, 0.5f,
                                 0.2f, 0.2f, 0.6f, 0.5f, 0.1f, 0.1f,  0.1f,  0.5f};
  std::vector<float> l1 = l0;
  std::memcpy(l1.data(), std::vector<float>{0.2f, 0.2f, 0.6f}.data(),
              3 * sizeof(float));  // query 0 changes
  s.observe(AttentionChain::kEncoder, 0, Tensor::from_vector(l0, {1, 1, 4, 4}));
  s.observe(AttentionChain::kEncoder, 1, Tensor::from_vector(l1, {1, 1, 4, 4}));
  ASSERT_EQ(s.entropy(0, 0, 0).size(), 3u);  // query 3 is padding
  EXPECT_NEAR(s.entropy(0, 0, 0)[0], 1.1567796494470395, 1e-6);
  EXPECT_NEAR(s.entropy(0, 0, 0)[1], 1.5, 1e-6);
  EXPECT_NEAR(s.entropy(0, 1, 0)[0], 1.3709505944546687, 1e-6);
  ASSERT_EQ(s.jsd(0, 0, 0).size(), 3u);
  EXPECT_NEAR(s.jsd(0, 0, 0)[0], 0.24902249956730638, 1e-6);
  EXPECT_EQ(s.jsd(0, 0, 0)[1], 0.0f);
  EXPECT_EQ(s.jsd(0, 0, 0)[2], 0.0f);
}

// Tiny models: 2 layers a stack, 2 heads, vocabulary 13.
std::unique_ptr<models::Transformer> tiny(uint64_t seed, bool uniform) {
  set_num_threads(1);
  models::ModelConfig c;
  c.vocab_size = 13;
  c.enc_depth = c.dec_depth = 2;
  c.dim_emb = 8;
  c.heads = 2;
  c.dim_ffn = 16;
  c.dropout = 0.0;
  c.admin_init = models::AdminInit::kClosedForm;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      layers::ResidualMode::kMean;
  auto m = std::make_unique<models::Transformer>(c);
  m->allocate(Device::cpu());
  m->init(seed);
  if (uniform) {  // zero queries (and keys): every score is 0, so attention is uniform over the
                  // visible keys
    const auto& names = m->params().names();
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i].find(".qkv.") != std::string::npos ||
          names[i].find("cross_attn.q.") != std::string::npos) {
        const Tensor v = m->params()[static_cast<int>(i)].value();
        std::memset(v.data<float>(), 0, static_cast<size_t>(v.numel()) * sizeof(float));
      }
  }
  return m;
}

// Runs sentences (source ids without eos, target ids) as one padded batch.
void run(const models::Transformer& m, AttentionStats& s,
         const std::vector<std::vector<int32_t>>& src,
         const std::vector<std::vector<int32_t>>& tgt) {
  const auto b = static_cast<int64_t>(src.size());
  int64_t S = 0, T = 0;
  for (int64_t r = 0; r < b; ++r) {
    S = std::max<int64_t>(S, static_cast<int64_t>(src[r].size()) + 1);
    T = std::max<int64_t>(T, static_cast<int64_t>(tgt[r].size()) + 1);
  }
  std::vector<int32_t> sv(b * S, 0), tv(b * T, 0);
  std::vector<int64_t> sl, tl;
  for (int64_t r = 0; r < b; ++r) {
    std::copy(src[r].begin(), src[r].end(), sv.begin() + r * S);
    sv[r * S + static_cast<int64_t>(src[r].size())] = 3;  // eos
    tv[r * T] = 2;                                        // <s>
    std::copy(tgt[r].begin(), tgt[r].end(), tv.begin() + r * T + 1);
    sl.push_back(static_cast<int64_t>(src[r].size()) + 1);
    tl.push_back(static_cast<int64_t>(tgt[r].size()) + 1);
  }
  graph::NoGradGuard no_grad;
  s.begin_batch(sl, tl);
  models::ForwardContext ctx;
  ctx.attention = &s;
  m.decode(m.encode(Tensor::from_vector(sv, {b, S}), ctx), Tensor::from_vector(tv, {b, T}), ctx);
}

TEST(AttentionStats, UniformAttentionGivesLog2NAndZeroJsd) {
  const auto m = tiny(3, true);
  AttentionStats s(2, 2, 2);
  // Source lengths 2+1 and 5+1 (eos), target input lengths 3+1 and 1+1: padding on both sides.
  run(*m, s, {{5, 6}, {5, 6, 7, 8, 9}}, {{10, 11, 12}, {7}});
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) {
      // encoder: 3 queries seeing 3 keys, 6 seeing 6; cross: 4 then 2 queries seeing 3 and 6.
      std::vector<float> want_enc{3, 3, 3, 6, 6, 6, 6, 6, 6}, want_cross{3, 3, 3, 3, 6, 6};
      std::vector<float> want_dec{2, 3, 4,
                                  2};  // decoder: query i sees i + 1 keys; query 0 is skipped
      for (auto* w : {&want_enc, &want_cross, &want_dec})
        for (float& x : *w) x = static_cast<float>(std::log2(x));
      ASSERT_EQ(s.entropy(0, l, h).size(), want_enc.size());
      for (size_t i = 0; i < want_enc.size(); ++i)
        EXPECT_NEAR(s.entropy(0, l, h)[i], want_enc[i], 1e-5);
      ASSERT_EQ(s.entropy(1, l, h).size(), want_dec.size());
      for (size_t i = 0; i < want_dec.size(); ++i)
        EXPECT_NEAR(s.entropy(1, l, h)[i], want_dec[i], 1e-5);
      ASSERT_EQ(s.entropy(2, l, h).size(), want_cross.size());
      for (size_t i = 0; i < want_cross.size(); ++i)
        EXPECT_NEAR(s.entropy(2, l, h)[i], want_cross[i], 1e-5);
    }
  for (int c = 0; c < kChains; ++c)
    for (int h = 0; h < 2; ++h) {
      ASSERT_FALSE(s.jsd(c, 0, h).empty());
      for (float x : s.jsd(c, 0, h)) EXPECT_NEAR(x, 0.0f, 1e-6);  // identical adjacent heads
    }
}

// Records the raw probabilities, for the naive reference below.
struct Recorder final : models::AttentionObserver {
  std::vector<std::vector<float>> probs[kChains];
  std::vector<int64_t> shape[kChains];
  void observe(AttentionChain c, int, const Tensor& p) override {
    probs[static_cast<int>(c)].push_back(p.to_vector<float>());
    shape[static_cast<int>(c)] = p.shape().vec();
  }
};

TEST(AttentionStats, RandomModelMatchesNaiveReferenceAndIgnoresPadding) {
  const auto m = tiny(11, false);
  const std::vector<int32_t> src{5, 6, 7, 8}, tgt{9, 10, 11};
  // Alone: the naive sums in double from the recorded probabilities.
  Recorder rec;
  {
    graph::NoGradGuard no_grad;
    models::ForwardContext ctx;
    ctx.attention = &rec;
    m->decode(m->encode(Tensor::from_vector(std::vector<int32_t>{5, 6, 7, 8, 3}, {1, 5}), ctx),
              Tensor::from_vector(std::vector<int32_t>{2, 9, 10, 11}, {1, 4}), ctx);
  }
  AttentionStats alone(2, 2, 2);
  run(*m, alone, {src}, {tgt});
  for (int c = 0; c < kChains; ++c) {
    const int64_t Tq = rec.shape[c][2], Tk = rec.shape[c][3];
    for (int h = 0; h < 2; ++h) {
      size_t k = 0;
      for (int64_t i = 0; i < Tq; ++i) {
        const int64_t n = c == 1 ? i + 1 : Tk;
        if (n == 1) continue;
        double ent = 0, kl_p = 0, kl_q = 0;
        for (int64_t j = 0; j < n; ++j) {
          const double p = rec.probs[c][0][(h * Tq + i) * Tk + j],
                       q = rec.probs[c][1][(h * Tq + i) * Tk + j];
          ent -= p > 0 ? p * std::log(p) / std::log(2.0) : 0.0;
          kl_p += p > 0 ? p * std::log(2 * p / (p + q)) / std::log(2.0) : 0.0;
          kl_q += q > 0 ? q * std::log(2 * q / (p + q)) / std::log(2.0) : 0.0;
        }
        ASSERT_LT(k, alone.entropy(c, 0, h).size());
        EXPECT_NEAR(alone.entropy(c, 0, h)[k], ent, 1e-5) << c << " " << h << " " << i;
        EXPECT_NEAR(alone.jsd(c, 0, h)[k], (kl_p + kl_q) / 2, 1e-5) << c << " " << h << " " << i;
        ++k;
      }
      EXPECT_EQ(k, alone.entropy(c, 0, h).size());
    }
  }
  // In a padded batch (a longer pair first), the pair's values are the same.
  AttentionStats batched(2, 2, 2);
  run(*m, batched, {{5, 6, 7, 8, 9, 10, 11}, src}, {{12, 12, 12, 12, 12}, tgt});
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 2; ++h) {
        const std::vector<float>& a = alone.entropy(c, l, h);
        const std::vector<float>& b = batched.entropy(c, l, h);
        ASSERT_GT(b.size(), a.size());
        for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(b[b.size() - a.size() + i], a[i], 1e-5);
      }
}

TEST(AttentionStats, ObservingLeavesTheForwardPassUnchanged) {
  const auto m = tiny(13, false);
  const Tensor src = Tensor::from_vector(std::vector<int32_t>{5, 6, 7, 3}, {1, 4});
  const Tensor tgt = Tensor::from_vector(std::vector<int32_t>{2, 9, 10}, {1, 3});
  graph::NoGradGuard no_grad;
  const std::vector<float> plain =
      m->decode(m->encode(src, {}), tgt, {}).value().to_vector<float>();
  AttentionStats s(2, 2, 2);
  s.begin_batch({4}, {3});
  models::ForwardContext ctx;
  ctx.attention = &s;
  const std::vector<float> observed =
      m->decode(m->encode(src, ctx), tgt, ctx).value().to_vector<float>();
  EXPECT_EQ(plain, observed);  // bit for bit
  EXPECT_EQ(s.entropy(2, 1, 1).size(), 3u);
}

}  // namespace
}  // namespace realmt::analysis
