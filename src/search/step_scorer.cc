#include "search/step_scorer.h"

#include <algorithm>

#include "ops/cast.h"
#include "ops/elementwise.h"
#include "ops/index_select.h"
#include "ops/topk.h"
#include "search/model_loader.h"
#include "search/vocab_checks.h"

namespace realmt::search {

StepScorer::StepScorer(const std::vector<const models::Transformer*>& models,
                       std::vector<double> weights, int32_t eos,
                       std::vector<models::OutputSubset> subsets)
    : models_(models), weights_(std::move(weights)), subsets_(std::move(subsets)), eos_(eos) {
  REALMT_CHECK(!models_.empty(), "beam search needs at least one model");
  check_ensemble_vocabularies(models_);
  if (weights_.empty()) weights_.assign(models_.size(), 1.0);
  REALMT_CHECK(weights_.size() == models_.size(), "weights: {} given for {} models (one per model)",
               weights_.size(), models_.size());
  vocab_size_ = models_[0]->config().target_vocab();
  device_ = models_[0]->device();
}

StepScores StepScorer::score(const std::vector<Tensor>& hidden, const Tensor& bias,
                             int64_t k) const {
  StepScores s;
  // A shortlist's batch has fewer candidates than the vocabulary.
  if (!subsets_.empty()) k = std::min<int64_t>(k, static_cast<int64_t>(subsets_[0].ids.size()));
  // A negative weight turns the best tokens into the worst: only the combined path ranks those.
  s.fused = models_.size() == 1 && weights_[0] > 0 && hidden[0].dtype() == DType::kF32;
  if (s.fused) {
    s.candidates = fused_candidates(hidden[0], bias, k);
    return s;
  }
  for (size_t m = 0; m < models_.size(); ++m) {
    s.log_probs.push_back(models_[m]->log_probs(hidden[m], subset(m)));
    if (s.log_probs[m].dtype() != DType::kF32)
      s.log_probs[m] = ops::cast(s.log_probs[m], DType::kF32);
  }
  s.candidates = combined_candidates(s.log_probs, bias, k);
  return s;
}

RowCandidates StepScorer::fused_candidates(const Tensor& hidden, const Tensor& bias,
                                           int64_t k) const {
  RowCandidates c;
  c.k = k;
  const ops::LinearTopkResult r = models_[0]->output_topk(hidden, bias, {k, eos_}, subset(0));
  c.values = r.values.to_vector<float>();
  c.tokens = r.indices.to_vector<int32_t>();
  c.eos = r.also.to_vector<float>();
  if (weights_[0] != 1.0) {
    for (float& v : c.values) v = static_cast<float>(v * weights_[0]);
    for (float& v : c.eos) v = static_cast<float>(v * weights_[0]);
  }
  return c;
}

// sum_m w_m log p_m, in f32 (the log-probabilities themselves when one model has weight 1).
Tensor StepScorer::weighted_sum(const std::vector<Tensor>& log_probs) const {
  if (models_.size() == 1 && weights_[0] == 1.0) return log_probs[0];
  Tensor sum = ops::mul(log_probs[0], Tensor::full({1}, weights_[0], DType::kF32, device_));
  for (size_t m = 1; m < models_.size(); ++m)
    sum =
        ops::add(sum, ops::mul(log_probs[m], Tensor::full({1}, weights_[m], DType::kF32, device_)));
  return sum;
}

RowCandidates StepScorer::combined_candidates(const std::vector<Tensor>& log_probs,
                                              const Tensor& bias, int64_t k) const {
  const int64_t V = vocab_size_, N = log_probs[0].dim(0);
  const Tensor combined = weighted_sum(log_probs);
  RowCandidates c;
  c.k = k;
  auto [v, i] = ops::topk(ops::add(combined, bias.reshape({1, V})), k);
  c.values = v.to_vector<float>();
  c.tokens = i.to_vector<int32_t>();
  std::vector<int32_t> eos_flat(static_cast<size_t>(N));
  for (int64_t r = 0; r < N; ++r) eos_flat[r] = static_cast<int32_t>(r * V + eos_);
  c.eos = ops::index_select(combined.reshape({N * V}), 0,
                            Tensor::from_vector(eos_flat, {N}).to(device_))
              .to_vector<float>();
  return c;
}

std::vector<float> StepScorer::model_log_probs(const StepScores& scores,
                                               const std::vector<RowToken>& chosen) const {
  const size_t M = models_.size();
  std::vector<float> out(chosen.size() * M);
  if (scores.fused) {  // one model: its log-probability is the weighted one over its weight
    for (size_t c = 0; c < chosen.size(); ++c)
      out[c] = static_cast<float>(chosen[c].log_prob / weights_[0]);
    return out;
  }
  const int64_t N = scores.log_probs[0].dim(0);
  std::vector<int32_t> flat(chosen.size());
  for (size_t c = 0; c < chosen.size(); ++c)
    flat[c] = chosen[c].row * static_cast<int32_t>(vocab_size_) + chosen[c].token;
  const Tensor flat_t = Tensor::from_vector(flat, {static_cast<int64_t>(flat.size())}).to(device_);
  for (size_t m = 0; m < M; ++m) {
    const std::vector<float> g =
        ops::index_select(scores.log_probs[m].reshape({N * vocab_size_}), 0, flat_t)
            .to_vector<float>();
    for (size_t c = 0; c < chosen.size(); ++c) out[c * M + m] = g[c];
  }
  return out;
}

}  // namespace realmt::search
