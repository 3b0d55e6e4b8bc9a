// The beam search's selection: from the step's per-row candidates (search/step_scorer.h), each
// sentence's expansions. Gathering is common to every beam mode: a live hypothesis's candidates
// (cost + log-probability) minus the tokens the loop guard blocks; when the guard leaves none,
// eos for every hypothesis; at realmt's length limit eos for every hypothesis and nothing else
// (search/token_rules.h). Which of those continue is the mode's (search/search_options.h, Beam):
//   ShrinkingBeam (BeamMode::kShrink, Marian's): the best `slots`; those ending in eos finish
//     and give up their slot. Greedy decoding is its beam size 1.
//   FullBeam (BeamMode::kFull): of the best 2 x beam, the eos ones among the first beam finish
//     and the best beam others continue.
// Ranking: by score, ties to the lower row of the sentence, then the lower token (ops::topk's
// order over the sentence's [rows x V]).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "search/beam_state.h"
#include "search/step_scorer.h"
#include "search/token_rules.h"

namespace realmt::search {

// One allowed expansion of a sentence's live hypothesis.
struct Option {
  double score;    // the hypothesis's cost + the token's log-probability
  int64_t order;   // the hypothesis's row within its sentence x V + token (ties: lower first)
  int parent;      // index into the sentence's live list
  float log_prob;  // the token's ensemble-weighted log-probability
  int32_t token;
};

class SelectionStrategy {
 public:
  virtual ~SelectionStrategy() = default;
  // Candidates per row a sentence with `slots` slots left needs (before the loop guard's extra).
  virtual int64_t row_candidates(int slots) const = 0;
  // Appends to `chosen`, best first, the expansions that go on from `options` (all of one
  // sentence's, any order; reordered here).
  virtual void take(std::vector<Option>& options, int slots, int32_t eos,
                    std::vector<Option>& chosen) const = 0;
};

class ShrinkingBeam final : public SelectionStrategy {
 public:
  int64_t row_candidates(int slots) const override { return slots; }
  void take(std::vector<Option>& options, int slots, int32_t eos,
            std::vector<Option>& chosen) const override;
};

class FullBeam final : public SelectionStrategy {
 public:
  explicit FullBeam(int beam_size) : beam_size_(beam_size) {}
  int64_t row_candidates(int /*slots*/) const override {
    return 2 * static_cast<int64_t>(beam_size_);
  }
  void take(std::vector<Option>& options, int slots, int32_t eos,
            std::vector<Option>& chosen) const override;

 private:
  int beam_size_;
};

std::unique_ptr<SelectionStrategy> make_selection(const SearchOptions& options);

// The candidates per row this step needs: the widest active sentence's, plus the loop guard's.
int64_t step_candidates(const BeamState& state, const SelectionStrategy& strategy,
                        const TokenRules& rules);

// A sentence's allowed expansions: the live hypotheses' candidates (rows first_row + j ..) minus
// blocked tokens, or every hypothesis's eos when the loop guard blocks all (eos -inf: none).
std::vector<Option> gather_options(const std::vector<Live>& live, int64_t first_row,
                                   const RowCandidates& cand, const TokenRules& rules,
                                   const HypothesisHistory& history, LoopGuard& guard);

// The step's expansions at target position t, sentence by sentence in row order.
std::vector<Expansion> select_expansions(const BeamState& state, const RowCandidates& cand,
                                         const TokenRules& rules, const SelectionStrategy& strategy,
                                         LoopGuard& guard, int64_t t);

}  // namespace realmt::search
