#include "search/search_options.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace realmt::search {

AlignmentKind parse_alignment(const std::string& name) {
  if (name.empty() || name == "none") return AlignmentKind::kNone;
  if (name == "hard") return AlignmentKind::kHard;
  if (name == "soft") return AlignmentKind::kSoft;
  REALMT_FAIL("alignment: unknown value '{}' (use none, hard or soft)", name);
}

void SearchOptions::validate(size_t models) const {
  REALMT_CHECK(beam_size >= 1, "beam-size must be at least 1, got {}", beam_size);
  REALMT_CHECK(n_best >= 1 && n_best <= beam_size,
               "n-best: {} hypotheses asked with beam-size {} (at most the beam)", n_best,
               beam_size);
  REALMT_CHECK(std::isfinite(normalize) && normalize >= 0,
               "normalize must be a finite number >= 0, got {}", normalize);
  REALMT_CHECK(std::isfinite(word_penalty), "word-penalty must be finite, got {}", word_penalty);
  REALMT_CHECK(max_length_factor > 0, "max-length-factor must be positive, got {}",
               max_length_factor);
  REALMT_CHECK(min_length >= 0, "min-length must be >= 0, got {}", min_length);
  REALMT_CHECK(repeat_ngram >= 0, "repeat-guard must be >= 0 (0: off), got {}", repeat_ngram);
  REALMT_CHECK(max_length >= 1, "max-length must be at least 1, got {}", max_length);
  REALMT_CHECK(weights.empty() || weights.size() == models,
               "weights: {} given for {} models (one per model)", weights.size(), models);
  REALMT_CHECK(use_cache || alignment == AlignmentKind::kNone,
               "alignments need the key/value cache decoder");
}

int64_t SearchOptions::output_limit(int64_t source_tokens) const {
  // Marian stops once its history holds factor * S steps (a float comparison): the ceiling.
  const double x = max_length_factor * static_cast<double>(source_tokens);
  const auto by_factor =
      static_cast<int64_t>(length_rule == LengthRule::kMarian ? std::ceil(x) : std::floor(x));
  return std::max<int64_t>(1, std::min(max_length, by_factor));
}

}  // namespace realmt::search
