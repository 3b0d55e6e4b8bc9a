#include "search/beam_selection.h"

#include <algorithm>
#include <cmath>

namespace realmt::search {
namespace {

// Sorts the best `take` options to the front: score, then order.
void sort_best(std::vector<Option>& options, size_t take) {
  std::partial_sort(options.begin(), options.begin() + take, options.end(),
                    [](const Option& a, const Option& b) {
                      return a.score > b.score || (a.score == b.score && a.order < b.order);
                    });
}

// One live hypothesis's candidates (its row within the sentence: `slot`), minus the tokens the
// loop guard (when on) blocked; a -inf candidate is forbidden, and so is everything after it.
void add_candidates(const Live& h, int parent, int64_t slot, const RowCandidates& cand,
                    const TokenRules& rules, const LoopGuard* guard, std::vector<Option>& out) {
  const int64_t V = rules.vocab_size();
  for (int64_t c = 0; c < cand.k; ++c) {
    const float v = cand.values[h.row * cand.k + c];
    if (!std::isfinite(v)) break;
    const int32_t token = cand.tokens[h.row * cand.k + c];
    if (guard && token != rules.eos() && guard->blocks(token)) continue;
    out.push_back({h.cost + v, slot * V + token, parent, v, token});
  }
}

}  // namespace

void ShrinkingBeam::take(std::vector<Option>& options, int slots, int32_t /*eos*/,
                         std::vector<Option>& chosen) const {
  const size_t take = std::min<size_t>(static_cast<size_t>(slots), options.size());
  sort_best(options, take);
  chosen.insert(chosen.end(), options.begin(), options.begin() + static_cast<std::ptrdiff_t>(take));
}

void FullBeam::take(std::vector<Option>& options, int /*slots*/, int32_t eos,
                    std::vector<Option>& chosen) const {
  const size_t width = static_cast<size_t>(beam_size_);
  const size_t take = std::min<size_t>(2 * width, options.size());
  sort_best(options, take);
  size_t live = 0;
  for (size_t c = 0; c < take; ++c) {
    if (options[c].token == eos ? c >= width : live++ >= width) continue;
    chosen.push_back(options[c]);
  }
}

std::unique_ptr<SelectionStrategy> make_selection(const SearchOptions& o) {
  if (o.beam_mode == BeamMode::kFull) return std::make_unique<FullBeam>(o.beam_size);
  return std::make_unique<ShrinkingBeam>();
}

int64_t step_candidates(const BeamState& state, const SelectionStrategy& strategy,
                        const TokenRules& rules) {
  int64_t top = 1;
  for (size_t idx : state.active())
    top = std::max(top, strategy.row_candidates(state.sentence(idx).slots));
  return rules.candidates(top);
}

std::vector<Option> gather_options(const std::vector<Live>& live, int64_t first_row,
                                   const RowCandidates& cand, const TokenRules& rules,
                                   const HypothesisHistory& history, LoopGuard& guard) {
  std::vector<Option> options;
  const bool guarded = rules.repeat_ngram() > 0;
  for (size_t j = 0; j < live.size(); ++j) {
    if (guarded) guard.find(history, live[j].node, rules.repeat_ngram());
    add_candidates(live[j], static_cast<int>(j), live[j].row - first_row, cand, rules,
                   guarded ? &guard : nullptr, options);
  }
  if (!options.empty() || !guarded) return options;
  // Every candidate would repeat a loop: the hypotheses end here (eos).
  const int64_t V = rules.vocab_size();
  for (size_t j = 0; j < live.size(); ++j) {
    const float v = cand.eos[live[j].row];
    if (!std::isfinite(v)) continue;
    options.push_back({live[j].cost + v, (live[j].row - first_row) * V + rules.eos(),
                       static_cast<int>(j), v, rules.eos()});
  }
  return options;
}

std::vector<Expansion> select_expansions(const BeamState& state, const RowCandidates& cand,
                                         const TokenRules& rules, const SelectionStrategy& strategy,
                                         LoopGuard& guard, int64_t t) {
  std::vector<Expansion> chosen;
  std::vector<Option> taken;
  const std::vector<size_t>& active = state.active();
  for (size_t p = 0; p < active.size(); ++p) {
    const Sentence& s = state.sentence(active[p]);
    if (rules.forces_eos(t, s.limit)) {
      for (size_t j = 0; j < s.live.size(); ++j)
        chosen.push_back({active[p], static_cast<int>(j), rules.eos(), cand.eos[s.live[j].row]});
      continue;
    }
    std::vector<Option> options =
        gather_options(s.live, static_cast<int64_t>(p) * state.rows_per_sentence(), cand, rules,
                       state.history(), guard);
    taken.clear();
    strategy.take(options, s.slots, rules.eos(), taken);
    for (const Option& o : taken) chosen.push_back({active[p], o.parent, o.token, o.log_prob});
  }
  return chosen;
}

}  // namespace realmt::search
