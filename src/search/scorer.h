// Teacher-forced scoring of given sentence pairs (realmt-score, n-best rescoring, tests):
// the log-probability each model gives the target, combined with the ensemble weights, and
// the same length-normalised score the beam search ranks by (search/search_options.h), so a
// hypothesis of the search and its pair scored here agree up to float rounding.
#pragma once

#include <cstdint>
#include <vector>

#include "models/transformer.h"

namespace realmt::search {

struct ScoreOptions {
  double normalize = 0.0;  // score = (log_prob - word_penalty * n) / n^normalize, n with eos
  double word_penalty = 0.0;
  std::vector<double> weights;  // one per model; empty: 1 for every model
  int64_t mini_batch = 32;      // pairs per forward pass
};

struct PairScore {
  double log_prob = 0.0;                // ensemble-weighted sum over target tokens, eos included
  double score = 0.0;                   // normalised as above
  std::vector<double> model_log_probs;  // per model, unweighted
  std::vector<float> token_log_probs;   // per target token, eos last (ensemble-weighted)
};

class Scorer {
 public:
  // The ensemble; held by reference, only read.
  explicit Scorer(std::vector<const models::Transformer*> models);
  // sources[i], targets[i]: subword ids without eos (eos is appended to both). Results in
  // input order; pairs are batched by length inside.
  std::vector<PairScore> score(const std::vector<std::vector<int32_t>>& sources,
                               const std::vector<std::vector<int32_t>>& targets,
                               const ScoreOptions& options) const;

 private:
  std::vector<const models::Transformer*> models_;
};

// The final score from a log-probability and a length n (eos included).
double normalized_score(double log_prob, int64_t length, double normalize, double word_penalty);

}  // namespace realmt::search
