// The beam search's state between steps: per sentence its live hypotheses (a node of the
// history plus running scores), its finished ones and its slots; which sentences are still in
// the batch (the active set, in row order) and how their hypotheses map to the decoder's rows.
// Every active sentence has the same number of rows (the widest one's live count; narrower ones
// repeat a live row as a dummy), so a sentence's rows are one block: block p holds rows
// [p x rows_per_sentence, (p + 1) x rows_per_sentence).
// Scores and finishing follow search/search_options.h: cost += log_prob - word_penalty per
// token; a finished hypothesis's score is cost / length^normalize.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "models/model_config.h"
#include "search/hypothesis_history.h"
#include "search/search_options.h"
#include "search/step_scorer.h"

namespace realmt::search {

// A hypothesis still being extended.
struct Live {
  int32_t node = -1;  // its last node in the history; -1: nothing decoded yet
  double cost = 0.0, log_prob = 0.0;
  int32_t row = 0;  // its row in the current batch
};

struct Sentence {
  size_t index = 0;   // position in the input
  int slots = 0;      // beam slots left (a full beam: hypotheses still to finish)
  int64_t limit = 1;  // output length limit L (eos included)
  int64_t source_len = 0;
  std::vector<Live> live;
  std::vector<Hypothesis> finished;
};

// One selected expansion: the sentence (input index), the parent (index into its live list),
// the next token and its ensemble-weighted log-probability.
struct Expansion {
  size_t sentence;
  int parent;
  int32_t token;
  float log_prob;
};

// How the decoder's rows move before the next step (DecoderSession::reorder).
struct RowMove {
  std::vector<int32_t> rows;  // new row i = old row rows[i]
  bool same_sources = false;  // the same sentences in the same blocks: a beam move
  bool identity = true;       // nothing moves
};

class BeamState {
 public:
  // sources[i]: sentence i's subword ids without eos; ids outside the model's source
  // vocabulary are an error naming the sentence. models: the ensemble's size (the history keeps
  // each model's log-probabilities).
  BeamState(const std::vector<std::vector<int32_t>>& sources, const SearchOptions& options,
            const models::ModelConfig& config, size_t models);

  Tensor source_batch() const;                            // i32 [B, S]: ids, eos, padding
  int64_t source_width() const { return source_width_; }  // S
  int64_t max_limit() const { return max_limit_; }  // the longest output allowed, eos included

  bool done() const { return active_.empty(); }
  const std::vector<size_t>& active() const { return active_; }  // sentence indices, in row order
  int64_t rows_per_sentence() const { return rows_per_sentence_; }
  int64_t rows() const { return static_cast<int64_t>(active_.size()) * rows_per_sentence_; }
  const std::vector<int32_t>& last_tokens() const {
    return last_;
  }  // [rows]: the decoder's next input
  const Sentence& sentence(size_t index) const { return sentences_[index]; }
  const HypothesisHistory& history() const { return history_; }

  // The chosen expansions' rows and log-probabilities, in order (for StepScorer::model_log_probs).
  std::vector<RowToken> rows_of(const std::vector<Expansion>& chosen) const;
  // Appends every chosen expansion of target position t to the history; those ending in eos, and
  // all at their sentence's length limit, finish. model_log_probs: [chosen, models]; cross: the
  // first model's cross-attention [rows, cross_cols] when alignments are kept, else empty.
  void extend(const std::vector<Expansion>& chosen, const std::vector<float>& model_log_probs,
              const std::vector<float>& cross, int64_t cross_cols, int64_t t);
  // After extend: sentences without slots or live hypotheses leave with their n-best; the others'
  // hypotheses get their rows in the next batch. Returns how the rows move.
  RowMove advance();
  // Per sentence, in input order, its n-best (sorted by score, best first). Once done.
  std::vector<std::vector<Hypothesis>> take_results() { return std::move(results_); }

 private:
  void add_sentence(size_t b, const std::vector<int32_t>& ids, int64_t source_vocab);
  void finish(Sentence& s, const Live& h, bool cut);
  void retire(Sentence& s);
  RowMove assign_rows(const std::vector<size_t>& still, int64_t k_next);

  SearchOptions options_;
  size_t models_;
  int32_t pad_, eos_, start_;
  int64_t source_width_ = 0, max_limit_ = 1, rows_per_sentence_ = 1;
  std::vector<int32_t> source_ids_;  // [B, S]
  std::vector<Sentence> sentences_;
  std::vector<std::vector<Live>> next_;  // per sentence: the hypotheses extend() keeps going
  std::vector<size_t> active_;
  std::vector<int32_t> last_;
  HypothesisHistory history_;
  std::vector<std::vector<Hypothesis>> results_;
};

}  // namespace realmt::search
