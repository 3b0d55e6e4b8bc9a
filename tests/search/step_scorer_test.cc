// The beam search's scorer alone: per-row candidates and eos log-probabilities against the
// models' full log-probabilities combined in double, for one model (the fused output layer,
// weighted or not), a negative weight and an ensemble; and the per-model log-probabilities of
// chosen expansions.
#include "search/step_scorer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "tiny_model.h"

namespace realmt::search {
namespace {

constexpr int64_t kVocab = 40, kRows = 5;
constexpr int32_t kEos = 3;

Tensor random_hidden(uint32_t seed, int64_t rows, int64_t dim) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> h(static_cast<size_t>(rows * dim));
  for (float& x : h) x = normal(rng);
  return Tensor::from_vector(h, {rows, dim});
}

std::vector<float> bias_forbidding(std::vector<int32_t> tokens) {
  std::vector<float> b(kVocab, 0.0f);
  for (int32_t t : tokens) b[t] = -std::numeric_limits<float>::infinity();
  return b;
}

// sum_m w_m log p_m in double: [rows][V].
std::vector<std::vector<double>> reference(const std::vector<const models::Transformer*>& models,
                                           const std::vector<double>& w,
                                           const std::vector<Tensor>& hidden) {
  std::vector<std::vector<double>> out(kRows, std::vector<double>(kVocab, 0.0));
  for (size_t m = 0; m < models.size(); ++m) {
    const std::vector<float> lp = models[m]->log_probs(hidden[m]).to_vector<float>();
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t v = 0; v < kVocab; ++v) out[r][v] += w[m] * lp[r * kVocab + v];
  }
  return out;
}

void expect_candidates(const RowCandidates& got, const std::vector<std::vector<double>>& want,
                       const std::vector<float>& bias, int64_t k) {
  ASSERT_EQ(got.k, k);
  ASSERT_EQ(got.values.size(), static_cast<size_t>(kRows * k));
  ASSERT_EQ(got.eos.size(), static_cast<size_t>(kRows));
  for (int64_t r = 0; r < kRows; ++r) {
    std::vector<int32_t> order(kVocab);
    std::iota(order.begin(), order.end(), 0);
    auto biased = [&](int32_t v) { return want[r][v] + bias[v]; };
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return biased(a) > biased(b); });
    for (int64_t c = 0; c < k; ++c) {
      EXPECT_EQ(got.tokens[r * k + c], order[c]) << "row " << r << " rank " << c;
      if (std::isinf(biased(order[c])))
        EXPECT_EQ(got.values[r * k + c], biased(order[c])) << "row " << r << " rank " << c;
      else
        EXPECT_NEAR(got.values[r * k + c], biased(order[c]), 1e-4) << "row " << r << " rank " << c;
    }
    EXPECT_NEAR(got.eos[r], want[r][kEos], 1e-4)
        << "eos of row " << r << " (its bias does not count)";
  }
}

struct Case {
  std::vector<double> weights;
  bool fused;
};

TEST(StepScorer, CandidatesAreTheBestWeightedTokensPerRow) {
  const auto m0 = test::tiny_model(21, kVocab), m1 = test::tiny_model(22, kVocab);
  const std::vector<float> bias =
      bias_forbidding({0, 2, kEos});  // eos forbidden: before min-length
  const Tensor bias_t = Tensor::from_vector(bias, {kVocab});
  for (const Case& c : {Case{{1.0}, true}, Case{{0.5}, true}, Case{{-1.0}, false},
                        Case{{0.3, 0.7}, false}, Case{{1.0, 1.0}, false}}) {
    std::vector<const models::Transformer*> models{m0.get()};
    if (c.weights.size() == 2) models.push_back(m1.get());
    std::vector<Tensor> hidden;
    for (size_t m = 0; m < models.size(); ++m)
      hidden.push_back(random_hidden(5 + static_cast<uint32_t>(m), kRows, 16));
    const StepScorer scorer(models, c.weights, kEos);
    for (int64_t k : {int64_t{1}, int64_t{6}, kVocab}) {
      const StepScores s = scorer.score(hidden, bias_t, k);
      EXPECT_EQ(s.fused, c.fused) << "weights " << c.weights[0];
      EXPECT_EQ(s.log_probs.size(), c.fused ? 0u : models.size());
      expect_candidates(s.candidates, reference(models, c.weights, hidden), bias, k);
    }
  }
}

TEST(StepScorer, ModelLogProbsOfChosenExpansionsAreEachModelsOwn) {
  const auto m0 = test::tiny_model(21, kVocab), m1 = test::tiny_model(22, kVocab);
  const Tensor bias_t = Tensor::from_vector(bias_forbidding({0, 2}), {kVocab});
  const std::vector<Tensor> hidden{random_hidden(5, kRows, 16), random_hidden(6, kRows, 16)};
  const std::vector<float> lp0 = m0->log_probs(hidden[0]).to_vector<float>();
  const std::vector<float> lp1 = m1->log_probs(hidden[1]).to_vector<float>();
  const std::vector<std::pair<int32_t, int32_t>> picks{{0, 7}, {4, kEos}, {2, 39}, {2, 5}};

  const StepScorer ensemble({m0.get(), m1.get()}, {0.3, 0.7}, kEos);
  const StepScores es = ensemble.score(hidden, bias_t, 4);
  std::vector<RowToken> chosen;
  for (auto [r, t] : picks) chosen.push_back({r, t, 0.0f});  // the weighted value is not read here
  const std::vector<float> got = ensemble.model_log_probs(es, chosen);
  ASSERT_EQ(got.size(), picks.size() * 2);
  for (size_t c = 0; c < picks.size(); ++c) {
    EXPECT_FLOAT_EQ(got[c * 2], lp0[picks[c].first * kVocab + picks[c].second]) << c;
    EXPECT_FLOAT_EQ(got[c * 2 + 1], lp1[picks[c].first * kVocab + picks[c].second]) << c;
  }

  // One model: its log-probability is the weighted one over its weight.
  const StepScorer single({m0.get()}, {0.5}, kEos);
  const StepScores ss = single.score({hidden[0]}, bias_t, 4);
  ASSERT_TRUE(ss.fused);
  chosen.clear();
  for (auto [r, t] : picks) chosen.push_back({r, t, 0.5f * lp0[r * kVocab + t]});
  const std::vector<float> one = single.model_log_probs(ss, chosen);
  ASSERT_EQ(one.size(), picks.size());
  for (size_t c = 0; c < picks.size(); ++c)
    EXPECT_NEAR(one[c], lp0[picks[c].first * kVocab + picks[c].second], 1e-6) << c;
}

TEST(StepScorer, RefusesEnsemblesWithDifferentVocabularies) {
  const auto m0 = test::tiny_model(21, kVocab), m1 = test::tiny_model(22, kVocab + 1);
  EXPECT_THROW(StepScorer({m0.get(), m1.get()}, {}, kEos), Error);
  EXPECT_THROW(StepScorer({m0.get()}, {1.0, 1.0}, kEos), Error);
}

}  // namespace
}  // namespace realmt::search
