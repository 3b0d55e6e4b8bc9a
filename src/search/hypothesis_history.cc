#include "search/hypothesis_history.h"

#include <algorithm>

namespace realmt::search {

int32_t HypothesisHistory::add(int32_t parent, int32_t token, float log_prob,
                               const float* model_log_probs, const float* alignment,
                               int64_t alignment_len) {
  Node n{parent, token, log_prob};
  if (alignments_ && alignment) {
    n.alignment = static_cast<int64_t>(alignment_values_.size());
    n.alignment_len = alignment_len;
    alignment_values_.insert(alignment_values_.end(), alignment, alignment + alignment_len);
  }
  nodes_.push_back(n);
  model_log_probs_.insert(model_log_probs_.end(), model_log_probs, model_log_probs + models_);
  return static_cast<int32_t>(nodes_.size() - 1);
}

Hypothesis HypothesisHistory::trace(int32_t node, bool ends_with_eos) const {
  std::vector<int32_t> path;
  for (int32_t i = node; i >= 0; i = nodes_[i].parent) path.push_back(i);
  std::reverse(path.begin(), path.end());
  Hypothesis h;
  h.model_log_probs.assign(models_, 0.0);
  for (size_t p = 0; p < path.size(); ++p) {
    const Node& n = nodes_[path[p]];
    if (p + 1 < path.size() || !ends_with_eos) h.tokens.push_back(n.token);
    h.token_log_probs.push_back(n.log_prob);
    for (size_t m = 0; m < models_; ++m)
      h.model_log_probs[m] += model_log_probs_[path[p] * models_ + m];
    if (n.alignment >= 0)
      h.alignment.emplace_back(alignment_values_.begin() + n.alignment,
                               alignment_values_.begin() + n.alignment + n.alignment_len);
  }
  return h;
}

}  // namespace realmt::search
