// Hypotheses as back-pointers (Marian's translator/hypothesis.h): every expansion of a beam
// search appends one node (its parent node, its token, its log-probabilities and, only when
// alignments are asked for, its cross-attention row); a live hypothesis is a node index plus its
// running scores, so extending it copies nothing, and the finished ones are traced back once.
#pragma once

#include <cstdint>
#include <vector>

#include "search/search_options.h"

namespace realmt::search {

class HypothesisHistory {
 public:
  // models: ensemble members (per-model log-probabilities per node); alignments: keep rows.
  HypothesisHistory(size_t models, bool alignments) : models_(models), alignments_(alignments) {}

  // Appends a node below `parent` (-1: the first token) and returns its index. model_log_probs
  // holds `models` values; alignment (when kept) the node's row over the source.
  int32_t add(int32_t parent, int32_t token, float log_prob, const float* model_log_probs,
              const float* alignment, int64_t alignment_len);
  int32_t token(int32_t node) const { return nodes_[node].token; }
  int32_t parent(int32_t node) const { return nodes_[node].parent; }  // -1 for a first token

  // The hypothesis ending at `node` (its eos node): tokens without the eos; per-token and
  // per-model log-probabilities and alignment rows from the first token on. ends_with_eos
  // false: `node` is a last token that is not eos (a translation cut at the length limit), kept.
  Hypothesis trace(int32_t node, bool ends_with_eos = true) const;

 private:
  struct Node {
    int32_t parent, token;
    float log_prob;
    int64_t alignment = -1;  // offset into alignment_values_
    int64_t alignment_len = 0;
  };
  size_t models_;
  bool alignments_;
  std::vector<Node> nodes_;
  std::vector<float> model_log_probs_;  // [nodes, models]
  std::vector<float> alignment_values_;
};

}  // namespace realmt::search
