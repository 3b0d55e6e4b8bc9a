// realmt-score's job on files: score sentence pairs (per sentence, per token, or a corpus
// summary) or rescore an n-best list (search/output_format.h), writing lines to `out`.
#pragma once

#include <ostream>

#include "search/decode_options.h"
#include "search/scorer.h"

namespace realmt::search {

struct ScoreSummary {
  size_t sentences = 0;
  int64_t target_tokens = 0;  // eos included
  double log_prob = 0.0;      // summed ensemble-weighted log-probability
  double perplexity() const;  // exp(-log_prob / target_tokens)
};

ScoreSummary score_files(const ScoreCliOptions& options, const Scorer& scorer,
                         const data::Vocab& vocab, std::ostream& out);

}  // namespace realmt::search
