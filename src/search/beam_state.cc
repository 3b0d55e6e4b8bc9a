#include "search/beam_state.h"

#include <algorithm>
#include <cmath>

#include "search/token_rules.h"

namespace realmt::search {

BeamState::BeamState(const std::vector<std::vector<int32_t>>& sources, const SearchOptions& options,
                     const models::ModelConfig& config, size_t models)
    : options_(options),
      models_(models),
      pad_(config.pad_id),
      eos_(config.eos_id),
      start_(config.decoder_start_id),
      history_(models, options.alignment != AlignmentKind::kNone) {
  const size_t B = sources.size();
  for (const auto& s : sources)
    source_width_ = std::max<int64_t>(source_width_, static_cast<int64_t>(s.size()) + 1);
  source_ids_.assign(B * static_cast<size_t>(source_width_), pad_);
  sentences_.resize(B);
  for (size_t b = 0; b < B; ++b) add_sentence(b, sources[b], config.vocab_size);
  active_.resize(B);
  for (size_t b = 0; b < B; ++b) active_[b] = b;
  last_.assign(B, start_);
  results_.resize(B);
}

// Sentence b: its source row (ids, eos, padding), its beam slots, its length limit, and one live
// hypothesis with nothing decoded on row b.
void BeamState::add_sentence(size_t b, const std::vector<int32_t>& ids, int64_t source_vocab) {
  const size_t row = b * static_cast<size_t>(source_width_);
  for (size_t j = 0; j < ids.size(); ++j) {
    REALMT_CHECK(ids[j] >= 0 && ids[j] < source_vocab,
                 "source sentence {} holds id {} outside the vocabulary (size {})", b, ids[j],
                 source_vocab);
    source_ids_[row + j] = ids[j];
  }
  source_ids_[row + ids.size()] = eos_;
  Sentence& s = sentences_[b];
  s.index = b;
  s.slots = options_.beam_size;
  s.source_len = static_cast<int64_t>(ids.size()) + 1;
  s.limit = options_.output_limit(s.source_len);
  max_limit_ = std::max(max_limit_, s.limit);
  s.live.push_back(Live{-1, 0.0, 0.0, static_cast<int32_t>(b)});
}

Tensor BeamState::source_batch() const {
  return Tensor::from_vector(source_ids_, {static_cast<int64_t>(sentences_.size()), source_width_});
}

std::vector<RowToken> BeamState::rows_of(const std::vector<Expansion>& chosen) const {
  std::vector<RowToken> out;
  out.reserve(chosen.size());
  for (const Expansion& e : chosen)
    out.push_back({sentences_[e.sentence].live[e.parent].row, e.token, e.log_prob});
  return out;
}

void BeamState::extend(const std::vector<Expansion>& chosen,
                       const std::vector<float>& model_log_probs, const std::vector<float>& cross,
                       int64_t cross_cols, int64_t t) {
  next_.assign(sentences_.size(), {});
  for (size_t c = 0; c < chosen.size(); ++c) {
    const Expansion& e = chosen[c];
    Sentence& s = sentences_[e.sentence];
    Live h = s.live[e.parent];
    h.cost += static_cast<double>(e.log_prob) - options_.word_penalty;
    h.log_prob += e.log_prob;
    const float* align = cross.empty() ? nullptr : cross.data() + h.row * cross_cols;
    h.node = history_.add(h.node, e.token, e.log_prob, model_log_probs.data() + c * models_, align,
                          s.source_len);
    if (e.token == eos_ ||
        TokenRules::reached_limit(t, s.limit)) {  // at the limit: cut (Marian's rule)
      finish(s, h, e.token != eos_);
    } else {
      next_[e.sentence].push_back(h);
    }
  }
}

// A finished hypothesis, ending in eos or (cut) at the length limit without it.
void BeamState::finish(Sentence& s, const Live& h, bool cut) {
  Hypothesis f = history_.trace(h.node, !cut);
  const double n = static_cast<double>(f.tokens.size() + (cut ? 0 : 1));
  f.score = options_.normalize == 0.0 ? h.cost : h.cost / std::pow(n, options_.normalize);
  f.log_prob = h.log_prob;
  s.finished.push_back(std::move(f));
}

RowMove BeamState::advance() {
  std::vector<size_t> still;
  int64_t k_next = 0;
  for (size_t idx : active_) {
    Sentence& s = sentences_[idx];
    const int finished_now = static_cast<int>(s.finished.size()) - (options_.beam_size - s.slots);
    s.slots -= finished_now;  // a full beam: the hypotheses still to finish
    s.live = std::move(next_[idx]);
    if (s.slots <= 0 || s.live.empty()) {
      retire(s);
      continue;
    }
    still.push_back(idx);
    k_next = std::max<int64_t>(k_next, static_cast<int64_t>(s.live.size()));
  }
  if (still.empty()) {
    active_.clear();
    return {};
  }
  RowMove move = assign_rows(still, k_next);
  move.same_sources = still == active_ && k_next == rows_per_sentence_;
  move.identity = move.same_sources;
  for (size_t r = 0; move.identity && r < move.rows.size(); ++r)
    move.identity = move.rows[r] == static_cast<int32_t>(r);
  active_ = std::move(still);
  rows_per_sentence_ = k_next;
  return move;
}

// The sentence leaves the batch with its n-best, best first (ties keep the order of finishing).
void BeamState::retire(Sentence& s) {
  std::stable_sort(s.finished.begin(), s.finished.end(),
                   [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
  if (static_cast<int>(s.finished.size()) > options_.n_best) s.finished.resize(options_.n_best);
  results_[s.index] = std::move(s.finished);
  s.live.clear();
}

// Block p of the next batch holds sentence still[p]'s hypotheses, then copies of its last one.
RowMove BeamState::assign_rows(const std::vector<size_t>& still, int64_t k_next) {
  RowMove move;
  move.rows.resize(still.size() * k_next);
  last_.assign(move.rows.size(), start_);
  for (size_t p = 0; p < still.size(); ++p) {
    Sentence& s = sentences_[still[p]];
    for (int64_t j = 0; j < k_next; ++j) {
      const Live& h = s.live[std::min<size_t>(j, s.live.size() - 1)];  // dummies copy a live row
      move.rows[p * k_next + j] = h.row;
      last_[p * k_next + j] = history_.token(h.node);
    }
    for (size_t j = 0; j < s.live.size(); ++j) s.live[j].row = static_cast<int32_t>(p * k_next + j);
  }
  return move;
}

}  // namespace realmt::search
