// What a beam search is asked for, and what it returns (ARCHITECTURE.md, How data flows).
//
// Scores. For a translation y = y_1 .. y_n (y_n = eos; n counts the eos):
//   log_prob(y) = sum_t sum_m w_m log p_m(y_t | y_<t, x)       (ensemble of models m, weights w_m)
//   cost(y)     = log_prob(y) - word_penalty * n                 (what the beam prunes on)
//   score(y)    = cost(y) / n^normalize                          (what finished hypotheses rank by)
// Marian's semantics: `normalize` is the length-penalty exponent (0: off, 1: per-token
// average); `word-penalty` subtracts word_penalty * length. realmt-score uses the same formula.
//
// Length. A translation has at most L = max(1, min(max_length, floor(max_length_factor * S)))
// tokens, its eos included, where S counts the source tokens and the source's eos. At the L-th
// token only eos is allowed, so every hypothesis ends with eos. pad and <s> are never produced;
// <unk> only with allow_unk. With min_length m, eos is allowed from the (m+1)-th token on
// (min_length = max_length - 1 fixes every output's length: the benchmarks use it).
// LengthRule::kMarian (--length-rule marian) is Marian's instead: L = min(max_length,
// ceil(max_length_factor * S)), any token may be chosen at the L-th position, and every
// hypothesis chosen there finishes, ending in eos or not (a translation cut at the limit, its
// length L without eos). Marian takes S from the widest source of its mini-batch; realmt from each
// sentence (Marian with mini-batch 1, the CLI's default).
//
// Beam (BeamMode::kShrink, Marian's). Each sentence starts with `beam_size` slots. Every step
// takes the sentence's best `slots` expansions; those ending in eos are finished and give up
// their slot, the others continue. A sentence is done when no slot is left. beam_size 1 is
// greedy decoding (ties go to the lower token id).
// BeamMode::kFull (Hugging Face's generate with early_stopping=True, fairseq): the beam stays
// full. Every step ranks the sentence's best 2 x beam_size expansions by cost; those ending in eos
// among the first beam_size are finished, and the best beam_size others continue. A sentence is
// done when beam_size hypotheses have finished (or none continues). With normalize 1 this is
// generate(num_beams=K, length_penalty=1.0, early_stopping=True) but at the length limit, where
// realmt adds eos's log-probability and generate adds 0.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/enum_names.h"

namespace realmt::search {

enum class AlignmentKind { kNone, kHard, kSoft };
enum class LengthRule { kRealmt, kMarian };  // see Length above
constexpr auto enum_names(LengthRule) {
  return std::to_array<EnumName<LengthRule>>(
      {{LengthRule::kRealmt, "realmt"}, {LengthRule::kMarian, "marian"}});
}
enum class BeamMode { kShrink, kFull };  // see above
constexpr auto enum_names(BeamMode) {
  return std::to_array<EnumName<BeamMode>>(
      {{BeamMode::kShrink, "shrink"}, {BeamMode::kFull, "full"}});
}

// What the search tells an observer after every step (benchmarks: allocations per step).
struct StepInfo {
  int64_t step = 0;  // 0-based target position just decoded
  int64_t rows = 0;  // hypotheses (rows) the step decoded
};
AlignmentKind parse_alignment(const std::string& name);  // "none" | "hard" | "soft"

// A callback after every step. Not part of what is searched: options that differ only in their
// observers compare equal (the server batches them together).
class StepObserver {
 public:
  StepObserver() = default;
  template <typename F>
  requires std::is_invocable_v<F&, const StepInfo&> || std::is_null_pointer_v<F> StepObserver(F f)
      : fn_(std::move(f)) {}  // NOLINT: implicit, as the std::function it wraps
  explicit operator bool() const { return static_cast<bool>(fn_); }
  void operator()(const StepInfo& s) const { fn_(s); }
  bool operator==(const StepObserver&) const { return true; }

 private:
  std::function<void(const StepInfo&)> fn_;
};

struct SearchOptions {
  int beam_size = 4;                       // hypotheses kept per sentence (1: greedy)
  BeamMode beam_mode = BeamMode::kShrink;  // finished hypotheses leave the beam (Marian) or not
  double normalize = 0.0;          // length-penalty exponent: score = cost / length^normalize
  double word_penalty = 0.0;       // subtracted once per target token (eos included)
  double max_length_factor = 3.0;  // output length limit relative to the source length
  int64_t max_length = 1000;       // absolute output length limit in tokens (eos included)
  int64_t min_length = 0;  // eos is not allowed before this many tokens (the length limit wins)
  LengthRule length_rule = LengthRule::kRealmt;  // what happens at the length limit (see Length)
  int n_best = 1;          // hypotheses returned per sentence (1 <= n_best <= beam_size)
  bool allow_unk = false;  // whether <unk> may be produced
  // Loop guard: a token that would make an n-gram of this many subwords occur a third time in
  // a hypothesis is not expanded (eos always may be; 0: off). Degenerate loops ("un nombre d'est
  // pas un nombre d'est pas ...") are cut at their second round; real text seldom repeats a
  // 4-subword sequence three times in one sentence.
  int repeat_ngram = 4;
  AlignmentKind alignment = AlignmentKind::kNone;  // keep cross-attention rows (first model)
  std::vector<double> weights;                     // one per model; empty: 1 for every model
  // false: recompute the decoder over the whole prefix every step instead of using the
  // key/value cache (the benchmark's and the tests' reference; same results).
  bool use_cache = true;
  // Called after every step when set (not part of the search's semantics).
  StepObserver on_step;

  // Every field counts (tests/search/search_options_test.cc fails on a field added without a
  // case there); the server batches requests whose options are equal.
  bool operator==(const SearchOptions&) const = default;

  void validate(size_t models) const;  // throws naming the option (Marian's names)
  // L above for a source of `source_tokens` tokens (eos included).
  int64_t output_limit(int64_t source_tokens) const;
};

struct Hypothesis {
  std::vector<int32_t> tokens;          // target ids, eos excluded
  double score = 0.0;                   // score(y), the ranking score
  double log_prob = 0.0;                // log_prob(y), ensemble-weighted, eos included
  std::vector<double> model_log_probs;  // per model: sum_t log p_m(y_t | ..) (n-best F0, F1, ..)
  std::vector<float> token_log_probs;   // per target token, eos last (ensemble-weighted)
  // Cross-attention of the first model's last decoder layer, heads averaged: one row per
  // target token (eos last) over the S source positions (source eos last). Empty unless asked.
  std::vector<std::vector<float>> alignment;
};

}  // namespace realmt::search
