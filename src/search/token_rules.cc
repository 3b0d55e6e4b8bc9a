#include "search/token_rules.h"

#include <algorithm>
#include <limits>

namespace realmt::search {

TokenRules::TokenRules(const models::ModelConfig& config, const SearchOptions& o, Device device)
    : min_length_(o.min_length),
      vocab_size_(config.target_vocab()),
      repeat_ngram_(o.repeat_ngram),
      eos_(config.eos_id),
      marian_limit_(o.length_rule == LengthRule::kMarian) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> host(static_cast<size_t>(vocab_size_), 0.0f);
  host[config.pad_id] = host[config.decoder_start_id] = kNegInf;
  if (!o.allow_unk) host[config.unk_id] = kNegInf;
  bias_ = Tensor::from_vector(host, {vocab_size_}).to(device);
  host[config.eos_id] = kNegInf;
  bias_no_eos_ = Tensor::from_vector(host, {vocab_size_}).to(device);
}

int64_t TokenRules::candidates(int64_t top) const {
  return std::min<int64_t>(repeat_ngram_ > 0 ? top + 4 : top, vocab_size_);
}

void LoopGuard::find(const HypothesisHistory& history, int32_t node, int n) {
  blocked_.clear();
  tokens_.clear();
  seen_.clear();
  for (int32_t x = node; x >= 0; x = history.parent(x)) tokens_.push_back(history.token(x));
  std::reverse(tokens_.begin(), tokens_.end());
  const int64_t m = n - 1;
  if (static_cast<int64_t>(tokens_.size()) < m + 1) return;
  count_followers(m);
  for (const auto& [token, count] : seen_)
    if (count >= 2) blocked_.push_back(token);
}

// For every earlier occurrence of the hypothesis's last m tokens, counts the token after it.
void LoopGuard::count_followers(int64_t m) {
  const int64_t len = static_cast<int64_t>(tokens_.size());
  for (int64_t i = 0; i + m < len; ++i) {
    if (!std::equal(tokens_.begin() + i, tokens_.begin() + i + m, tokens_.end() - m)) continue;
    const int32_t next = tokens_[static_cast<size_t>(i + m)];
    auto it =
        std::find_if(seen_.begin(), seen_.end(), [&](const auto& e) { return e.first == next; });
    if (it == seen_.end()) {
      seen_.push_back({next, 1});
    } else {
      ++it->second;
    }
  }
}

bool LoopGuard::blocks(int32_t token) const {
  return std::find(blocked_.begin(), blocked_.end(), token) != blocked_.end();
}

}  // namespace realmt::search
