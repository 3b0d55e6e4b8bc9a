// The beam search's scorer: one decoding step's output layer over the rows of a batch, for one
// model or an ensemble. Every row gets its k best next tokens by ensemble-weighted
// log-probability (sum_m w_m log p_m, plus the token bias: forbidden tokens are -inf), best
// first, and its eos log-probability; afterwards, each model's own log-probability of the
// expansions the search chose (the n-best F0, F1, .. columns).
// One model with a positive weight and an f32 decoder output: the fused output layer
// (ops/linear_log_softmax_topk.h: projection, log-softmax and top-k, no [N, V] tensor).
// Otherwise each model's [N, V] log-probabilities, their weighted sum and ops::topk per row.
// Teacher-forced scoring of whole pairs is search/scorer.h's.
#pragma once

#include <cstdint>
#include <vector>

#include "models/transformer.h"

namespace realmt::search {

// The step's per-row candidates, N rows.
struct RowCandidates {
  int64_t k = 0;
  std::vector<float> values;    // [N, k] ensemble-weighted log-probabilities, best first
  std::vector<int32_t> tokens;  // [N, k]
  std::vector<float> eos;       // [N] every row's eos log-probability (no bias)
};

// One expansion the search chose: its row, its token and its ensemble-weighted log-probability.
struct RowToken {
  int32_t row;
  int32_t token;
  float log_prob;
};

// What one step scored: the candidates, and what model_log_probs needs.
struct StepScores {
  RowCandidates candidates;
  bool fused = false;
  std::vector<Tensor> log_probs;  // !fused: each model's f32 [N, V]
};

class StepScorer {
 public:
  // models: the ensemble (held by reference, only read); weights: one per model, or empty (1
  // each); eos: the id whose log-probability every row reports; subsets: each model's output
  // table restricted to a lexical shortlist's candidates (empty: the whole vocabulary). With
  // subsets, candidates come from the subset only (their ids are still vocabulary ids).
  StepScorer(const std::vector<const models::Transformer*>& models, std::vector<double> weights,
             int32_t eos, std::vector<models::OutputSubset> subsets = {});

  // hidden[m]: model m's decoder output [N, D]; bias: f32 [V] on the models' device; k: candidates
  // per row (at most V).
  StepScores score(const std::vector<Tensor>& hidden, const Tensor& bias, int64_t k) const;
  // Model m's log-probability of every chosen expansion: [chosen, M], row-major.
  std::vector<float> model_log_probs(const StepScores& scores,
                                     const std::vector<RowToken>& chosen) const;

  size_t num_models() const { return models_.size(); }

 private:
  RowCandidates fused_candidates(const Tensor& hidden, const Tensor& bias, int64_t k) const;
  RowCandidates combined_candidates(const std::vector<Tensor>& log_probs, const Tensor& bias,
                                    int64_t k) const;
  Tensor weighted_sum(const std::vector<Tensor>& log_probs) const;
  const models::OutputSubset* subset(size_t m) const {
    return subsets_.empty() ? nullptr : &subsets_[m];
  }

  std::vector<const models::Transformer*> models_;
  std::vector<double> weights_;
  std::vector<models::OutputSubset> subsets_;
  int32_t eos_ = 0;
  int64_t vocab_size_ = 0;
  Device device_;
};

}  // namespace realmt::search
