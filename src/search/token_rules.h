// The beam search's rules on which token a hypothesis may take next (semantics in
// search/search_options.h: Length, and the loop guard of SearchOptions::repeat_ngram): the
// token bias the output layer adds (pad, the decoder start, <unk> unless allowed, eos before
// min-length), what happens at a sentence's length limit, and the loop guard's blocked tokens.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "models/model_config.h"
#include "search/hypothesis_history.h"
#include "search/search_options.h"

namespace realmt::search {

class TokenRules {
 public:
  // The special ids come from the model's config; the biases live on `device`.
  TokenRules(const models::ModelConfig& config, const SearchOptions& options, Device device);

  // f32 [V] added to every row's log-probabilities at target position t (0-based): -inf for
  // the tokens never produced (pad, the decoder start, <unk> unless allowed), and for eos while
  // t < min_length.
  const Tensor& bias(int64_t t) const { return t < min_length_ ? bias_no_eos_ : bias_; }
  // Candidates per row the output layer must give when a sentence may keep its `top` best
  // expansions: with the loop guard a few more, so that blocked tokens leave the beam full
  // (the best `top` expansions over all rows are within each row's best `top`, so more would
  // change nothing else). At most the vocabulary.
  int64_t candidates(int64_t top) const;
  // realmt's length rule: at the last position of a sentence whose limit is `limit` tokens,
  // every live hypothesis takes eos (no other choice).
  bool forces_eos(int64_t t, int64_t limit) const {
    return !marian_limit_ && reached_limit(t, limit);
  }
  // Either rule: every hypothesis extended at position t finishes (with Marian's rule one
  // whose token is not eos is a translation cut at the limit).
  static bool reached_limit(int64_t t, int64_t limit) { return t + 1 >= limit; }

  int repeat_ngram() const { return repeat_ngram_; }
  int32_t eos() const { return eos_; }
  int64_t vocab_size() const { return vocab_size_; }

 private:
  Tensor bias_, bias_no_eos_;
  int64_t min_length_ = 0, vocab_size_ = 0;
  int repeat_ngram_ = 0;
  int32_t eos_ = 0;
  bool marian_limit_ = false;
};

// The loop guard's lookup, with buffers kept across hypotheses and steps (no allocation per
// hypothesis): after find(), blocked() holds the tokens that would make an n-gram of `n`
// subwords occur a third time in the hypothesis ending at `node` (its last n - 1 tokens
// followed by the token). eos is for the caller to exempt.
class LoopGuard {
 public:
  void find(const HypothesisHistory& history, int32_t node, int n);
  const std::vector<int32_t>& blocked() const { return blocked_; }
  bool blocks(int32_t token) const;

 private:
  void count_followers(int64_t m);
  std::vector<int32_t> tokens_, blocked_;
  std::vector<std::pair<int32_t, int>>
      seen_;  // next token after an earlier copy of the suffix, count
};

}  // namespace realmt::search
