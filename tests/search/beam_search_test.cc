// Beam search against exhaustive enumeration, batched against one sentence at a time, the
// key/value cache against recomputation, greedy against an argmax loop, n-best against the scorer.
#include "search/beam_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/allocator.h"
#include "ops/topk.h"
#include "search/scorer.h"
#include "tiny_model.h"

namespace realmt::search {
namespace {

using test::all_targets;
using test::full_log_prob;
using test::tiny_model;

const std::vector<std::vector<int32_t>> kBatch{{4}, {5, 6, 4, 4, 5}, {6, 6},
                                               {},  {4, 5, 6},       {5, 5, 5, 4}};

struct Setting {
  double normalize, word_penalty;
  std::vector<double> weights;
};

TEST(BeamSearch, FullWidthBeamFindsTheExhaustiveBestAndRanksEverySequence) {
  const auto m0 = tiny_model(11), m1 = tiny_model(12);
  const std::vector<int32_t> source{4, 5, 6, 5};
  const auto targets = all_targets(3);  // 40 outputs of up to 3 words + eos
  ASSERT_EQ(targets.size(), 40u);
  for (const Setting& st :
       {Setting{0.0, 0.0, {1.0}}, Setting{1.0, 0.0, {1.0}}, Setting{0.6, -0.4, {1.0}},
        Setting{0.0, 0.0, {0.3, 0.7}}, Setting{1.0, 0.2, {1.0, 1.0}}}) {
    std::vector<const models::Transformer*> models{m0.get()};
    if (st.weights.size() == 2) models.push_back(m1.get());
    std::map<std::vector<int32_t>, double> want;
    for (const auto& y : targets) {
      double lp = 0;
      for (size_t m = 0; m < models.size(); ++m)
        lp += st.weights[m] * full_log_prob(*models[m], source, y);
      want[y] =
          normalized_score(lp, static_cast<int64_t>(y.size()) + 1, st.normalize, st.word_penalty);
    }
    std::vector<std::pair<double, std::vector<int32_t>>> ranked;
    for (const auto& [y, s] : want) ranked.push_back({s, y});
    std::sort(ranked.begin(), ranked.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    ASSERT_GT(ranked[0].first - ranked[1].first, 1e-4) << "tie at the top: pick other seeds";

    SearchOptions o;
    o.beam_size = o.n_best = 40;
    o.max_length = 4;
    o.max_length_factor = 10;
    o.normalize = st.normalize;
    o.word_penalty = st.word_penalty;
    o.weights = st.weights;
    const auto got = BeamSearch(models).search({source}, o);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0].size(), 40u)
        << "every sequence is reached by a beam as wide as the search space";
    EXPECT_EQ(got[0][0].tokens, ranked[0].second);
    for (size_t i = 0; i < got[0].size(); ++i) {
      const Hypothesis& h = got[0][i];
      ASSERT_TRUE(want.count(h.tokens));
      EXPECT_NEAR(h.score, want[h.tokens], 1e-4) << "rank " << i;
      EXPECT_NEAR(h.score, ranked[i].first, 1e-4) << "rank " << i;
      want.erase(h.tokens);  // each sequence once
    }
    // A narrower beam can only do as well or worse.
    o.beam_size = 2;
    o.n_best = 1;
    EXPECT_LE(BeamSearch(models).search({source}, o)[0][0].score, ranked[0].first + 1e-5);
  }
}

TEST(BeamSearch, BatchedEqualsOneSentenceAtATime) {
  const auto model = tiny_model(5);
  const BeamSearch search({model.get()});
  SearchOptions o;
  o.beam_size = 3;
  o.n_best = 3;
  o.normalize = 0.6;
  o.max_length_factor = 2;
  const auto batched = search.search(kBatch, o);
  ASSERT_EQ(batched.size(), kBatch.size());
  for (size_t i = 0; i < kBatch.size(); ++i) {
    const auto single = search.search({kBatch[i]}, o);
    ASSERT_EQ(single[0].size(), batched[i].size()) << i;
    for (size_t k = 0; k < single[0].size(); ++k) {
      EXPECT_EQ(single[0][k].tokens, batched[i][k].tokens) << i << " " << k;
      EXPECT_NEAR(single[0][k].score, batched[i][k].score, 1e-5) << i << " " << k;
    }
  }
}

TEST(BeamSearch, CachedDecodingEqualsRecomputingFromScratch) {
  for (const char* residual : {"none", "sum", "mean"}) {
    const auto a = tiny_model(21, test::kTinyVocab, residual),
               b = tiny_model(22, test::kTinyVocab, residual);
    const BeamSearch search({a.get(), b.get()});
    SearchOptions o;
    o.beam_size = 4;
    o.n_best = 4;
    o.weights = {0.5, 0.5};
    o.max_length_factor = 1.5;
    const auto cached = search.search(kBatch, o);
    o.use_cache = false;
    const auto recomputed = search.search(kBatch, o);
    for (size_t i = 0; i < kBatch.size(); ++i) {
      ASSERT_EQ(cached[i].size(), recomputed[i].size());
      for (size_t k = 0; k < cached[i].size(); ++k) {
        EXPECT_EQ(cached[i][k].tokens, recomputed[i][k].tokens) << residual << " " << i << " " << k;
        EXPECT_NEAR(cached[i][k].score, recomputed[i][k].score, 1e-5) << residual;
        for (size_t m = 0; m < 2; ++m)
          EXPECT_NEAR(cached[i][k].model_log_probs[m], recomputed[i][k].model_log_probs[m], 1e-5);
      }
    }
  }
}

// One model takes the fused output layer (projection, log-softmax and top-k in one op); an
// ensemble of the same model twice at weights 1/2 takes the generic path (log-probabilities,
// combination, ops::topk). Both must find the same hypotheses with the same scores, with the
// cache and without it.
TEST(BeamSearch, FusedOutputLayerEqualsTheEnsemblePath) {
  const auto m = tiny_model(61, 9);
  SearchOptions o;
  o.beam_size = o.n_best = 3;
  o.normalize = 0.5;
  o.word_penalty = 0.1;
  o.max_length_factor = 2;
  for (bool cache : {true, false}) {
    o.use_cache = cache;
    o.weights = {};
    const auto one = BeamSearch({m.get()}).search(kBatch, o);
    o.weights = {0.5, 0.5};
    const auto two = BeamSearch({m.get(), m.get()}).search(kBatch, o);
    for (size_t i = 0; i < kBatch.size(); ++i) {
      ASSERT_EQ(one[i].size(), two[i].size());
      for (size_t k = 0; k < one[i].size(); ++k) {
        EXPECT_EQ(one[i][k].tokens, two[i][k].tokens) << cache << " " << i << " " << k;
        EXPECT_NEAR(one[i][k].score, two[i][k].score, 1e-5);
        EXPECT_NEAR(one[i][k].model_log_probs[0], two[i][k].model_log_probs[0], 1e-5);
        ASSERT_EQ(one[i][k].token_log_probs.size(), two[i][k].token_log_probs.size());
      }
    }
  }
}

// The decoder state is allocated for batch x beam rows up front and moved in place: once the
// first steps have sized everything, no step takes a cache-sized block from the system (the
// caches, the cross-attention keys and values, the reorder scratch). What may still come is a
// small block when a tensor that grows with the position (one row of attention scores) moves
// into the next 256-byte size class while the pool's blocks of that class are in use; the
// bound below allows 4 such blocks, less than one [rows, H, capacity, Dh] cache of this model.
TEST(BeamSearch, StepsAfterTheFirstMakeNoCacheSizedSystemAllocation) {
  const auto m = tiny_model(71, 11);  // shapes no other test uses: the pools start cold
  SearchOptions o;
  o.beam_size = 5;
  o.max_length_factor = 2;  // at most 14 positions: the caches never need to grow
  std::vector<uint64_t> reserved;
  o.on_step = [&](const StepInfo& s) {
    EXPECT_EQ(s.step, static_cast<int64_t>(reserved.size()));
    reserved.push_back(allocator_for(Device::cpu()).stats().reserved_bytes);
  };
  const std::vector<std::vector<int32_t>> batch{
      {4, 5, 6, 7, 8, 9}, {5, 6, 7, 8, 9, 10}, {10, 9, 8, 7, 6, 5}};
  BeamSearch({m.get()}).search(batch, o);
  ASSERT_GT(reserved.size(), 6u);
  const uint64_t cache_bytes =
      12 * m->config().dim_emb * 14 * sizeof(float);  // rows x H x cap x Dh
  const uint64_t small = 4 * 768;
  ASSERT_LT(small, cache_bytes);
  for (size_t t = 3; t < reserved.size(); ++t)
    EXPECT_LE(reserved[t] - reserved[2], small)
        << "system allocation of " << reserved[t] - reserved[2] << " bytes by step " << t;
}

// The loop guard: no hypothesis holds an n-gram of 4 subwords three times. A random tiny model
// loops readily at a long length limit, which the unguarded search shows (so the check can fail).
TEST(BeamSearch, LoopGuardKeepsEveryFourGramToTwoOccurrences) {
  const auto m = tiny_model(5, 9);  // words 4..8: few choices, many repeats
  SearchOptions o;
  o.beam_size = 4;
  o.n_best = 4;
  o.max_length_factor = 8;
  o.min_length = 30;  // long outputs: room for loops
  const std::vector<std::vector<int32_t>> batch{
      {4, 5, 6, 7}, {8, 7, 6, 5}, {4, 4, 8, 8}, {6, 5, 4, 8}};
  auto most_repeated = [](const std::vector<int32_t>& y) {
    int most = 0;
    for (size_t i = 0; i + 4 <= y.size(); ++i) {
      int n = 0;
      for (size_t j = 0; j + 4 <= y.size(); ++j)
        n += std::equal(y.begin() + i, y.begin() + i + 4, y.begin() + j);
      most = std::max(most, n);
    }
    return most;
  };
  o.repeat_ngram = 0;
  int unguarded = 0;
  for (const auto& hyps : BeamSearch({m.get()}).search(batch, o))
    for (const auto& h : hyps) unguarded = std::max(unguarded, most_repeated(h.tokens));
  EXPECT_GE(unguarded, 3) << "the unguarded search should loop on this model";
  o.repeat_ngram = 4;
  size_t long_outputs = 0;
  for (const auto& hyps : BeamSearch({m.get()}).search(batch, o)) {
    ASSERT_FALSE(hyps.empty());
    for (const auto& h : hyps) {
      EXPECT_LE(most_repeated(h.tokens), 2);
      long_outputs += h.tokens.size() >= 10;
    }
  }
  EXPECT_GT(long_outputs, 0u);
}

TEST(BeamSearch, BeamOneIsGreedyArgmax) {
  const auto model = tiny_model(8, 12);  // words 4..11
  graph::NoGradGuard no_grad;
  SearchOptions o;
  o.beam_size = 1;
  o.max_length_factor = 2;
  o.repeat_ngram = 0;  // plain argmax (the random model repeats tokens)
  const auto got = BeamSearch({model.get()}).search(kBatch, o);
  for (size_t i = 0; i < kBatch.size(); ++i) {
    std::vector<int32_t> src = kBatch[i];
    src.push_back(3);
    auto state =
        model->start(model->encode(Tensor::from_vector(src, {1, int64_t(src.size())}), {}));
    std::vector<int32_t> want;
    int32_t last = 2;
    const int64_t limit = o.output_limit(static_cast<int64_t>(src.size()));
    for (int64_t t = 0; t < limit; ++t) {
      const Tensor logp = model->step(state, Tensor::from_vector(std::vector<int32_t>{last}, {1}));
      int32_t best = 3;  // eos, then the words; pad, unk and <s> are never produced
      for (int32_t v = 4; v < 12 && t + 1 < limit; ++v)
        if (logp.at(v) > logp.at(best)) best = v;
      if (best == 3) break;
      want.push_back(last = best);
    }
    ASSERT_EQ(got[i].size(), 1u);
    EXPECT_EQ(got[i][0].tokens, want) << i;
  }
}

TEST(BeamSearch, NBestIsSortedAndMatchesTheScorer) {
  const auto a = tiny_model(31), b = tiny_model(32);
  const std::vector<const models::Transformer*> models{a.get(), b.get()};
  SearchOptions o;
  o.beam_size = 5;
  o.n_best = 5;
  o.normalize = 1.0;
  o.word_penalty = 0.1;
  o.weights = {0.4, 0.8};
  const auto got = BeamSearch(models).search(kBatch, o);
  std::vector<std::vector<int32_t>> srcs, tgts;
  for (size_t i = 0; i < kBatch.size(); ++i) {
    ASSERT_EQ(got[i].size(), 5u);
    for (size_t k = 0; k < got[i].size(); ++k) {
      if (k > 0) {
        EXPECT_GE(got[i][k - 1].score, got[i][k].score);
      }
      srcs.push_back(kBatch[i]);
      tgts.push_back(got[i][k].tokens);
    }
  }
  ScoreOptions so;
  so.normalize = o.normalize;
  so.word_penalty = o.word_penalty;
  so.weights = o.weights;
  so.mini_batch = 7;
  const auto scored = Scorer(models).score(srcs, tgts, so);
  size_t j = 0;
  for (size_t i = 0; i < kBatch.size(); ++i)
    for (const Hypothesis& h : got[i]) {
      const PairScore& p = scored[j++];
      EXPECT_NEAR(h.score, p.score, 1e-4);
      EXPECT_NEAR(h.log_prob, p.log_prob, 1e-4);
      for (size_t m = 0; m < 2; ++m) EXPECT_NEAR(h.model_log_probs[m], p.model_log_probs[m], 1e-4);
      ASSERT_EQ(h.token_log_probs.size(), p.token_log_probs.size());
      for (size_t t = 0; t < p.token_log_probs.size(); ++t)
        EXPECT_NEAR(h.token_log_probs[t], p.token_log_probs[t], 1e-4);
    }
}

TEST(BeamSearch, AlignmentRowsAreDistributionsOverTheSource) {
  const auto model = tiny_model(41);
  SearchOptions o;
  o.beam_size = 2;
  o.alignment = AlignmentKind::kSoft;
  const auto got = BeamSearch({model.get()}).search(kBatch, o);
  for (size_t i = 0; i < kBatch.size(); ++i) {
    const Hypothesis& h = got[i][0];
    ASSERT_EQ(h.alignment.size(), h.tokens.size() + 1);
    for (const auto& row : h.alignment) {
      ASSERT_EQ(row.size(), kBatch[i].size() + 1);
      double sum = 0;
      for (float p : row) sum += p;
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
}

TEST(BeamSearch, MinLengthAndMaxLengthFixTheOutputLength) {
  const auto model = tiny_model(51);
  SearchOptions o;
  o.beam_size = o.n_best = 4;
  o.min_length = 3;
  o.max_length = 4;
  o.max_length_factor = 10;
  for (const auto& hyps : BeamSearch({model.get()}).search(kBatch, o)) {
    ASSERT_EQ(hyps.size(), 4u);
    for (const Hypothesis& h : hyps) EXPECT_EQ(h.tokens.size(), 3u);
  }
}

TEST(BeamSearch, OptionErrorsNameTheOption) {
  const auto model = tiny_model(1);
  const BeamSearch search({model.get()});
  SearchOptions o;
  o.n_best = 5;
  o.beam_size = 4;
  EXPECT_THROW(search.search(kBatch, o), Error);
  o.n_best = 1;
  o.weights = {1.0, 2.0};
  EXPECT_THROW(search.search(kBatch, o), Error);
  o.weights = {};
  EXPECT_THROW(search.search({{4, 99}}, o), Error);
  EXPECT_TRUE(search.search({}, o).empty());
}

}  // namespace
}  // namespace realmt::search

namespace realmt::search {
namespace {

// log p(y_1 .. y_n | x) without eos after y_n: a translation Marian's length rule cuts.
double prefix_log_prob(const models::Transformer& model, const std::vector<int32_t>& source,
                       const std::vector<int32_t>& target) {
  graph::NoGradGuard no_grad;
  std::vector<int32_t> src = source, in{2};
  src.push_back(3);
  in.insert(in.end(), target.begin(), target.end() - 1);
  const int64_t s = static_cast<int64_t>(src.size()), t = static_cast<int64_t>(in.size());
  const models::Encoded enc =
      model.encode(Tensor::from_vector(src, {1, s}), models::ForwardContext{});
  const Tensor logp = ops::log_softmax(
      model.logits(model.decode(enc, Tensor::from_vector(in, {1, t}), models::ForwardContext{}))
          .value());
  double sum = 0;
  for (int64_t j = 0; j < t; ++j)
    sum += logp.at(j * model.config().vocab_size + target[static_cast<size_t>(j)]);
  return sum;
}

// Marian's length rule (LengthRule::kMarian): at the limit L = ceil(factor x S) every token may
// be chosen and every chosen hypothesis finishes, so a beam as wide as the search space returns
// the 13 outputs that end in eos within L tokens and the 27 of L words cut without eos, each
// scored by its own log-probability over its length (L for the cut ones).
TEST(BeamSearch, MarianLengthRuleCutsAtTheCeilingOfTheLimit) {
  const auto model = tiny_model(31);
  const std::vector<int32_t> source{4};  // S = 2 with eos; factor 1.25: L = ceil(2.5) = 3
  std::map<std::vector<int32_t>, double> want;
  for (const auto& y : all_targets(3)) {
    if (y.size() == 3)
      want[y] = prefix_log_prob(*model, source, y) / std::pow(3.0, 0.6);
    else
      want[y] = normalized_score(full_log_prob(*model, source, y),
                                 static_cast<int64_t>(y.size()) + 1, 0.6, 0.0);
  }
  SearchOptions o;
  o.beam_size = o.n_best = 40;
  o.max_length_factor = 1.25;
  o.normalize = 0.6;
  o.length_rule = LengthRule::kMarian;
  const auto got = BeamSearch({model.get()}).search({source}, o);
  ASSERT_EQ(got[0].size(), 40u);
  double previous = 1e9;
  for (const Hypothesis& h : got[0]) {
    ASSERT_TRUE(want.count(h.tokens)) << "an output longer than the limit, or one twice";
    EXPECT_NEAR(h.score, want[h.tokens], 1e-4);
    EXPECT_LE(h.score, previous + 1e-9) << "ranked best first";
    previous = h.score;
    want.erase(h.tokens);
  }
  // realmt's rule: floor(2.5) = 2 tokens, the last one eos: only outputs of at most one word.
  o.length_rule = LengthRule::kRealmt;
  const auto realmt = BeamSearch({model.get()}).search({source}, o);
  for (const Hypothesis& h : realmt[0]) EXPECT_LE(h.tokens.size(), 1u);
}

}  // namespace
}  // namespace realmt::search
