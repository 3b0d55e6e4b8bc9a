// Text formats of decoder output.
//
//   n-best (Moses/Marian):  "<id> ||| <text> ||| F0= <lp_0> F1= <lp_1> ... ||| <score>"
//     id is the 0-based input line, F<m> the log-probability of model m, score as ranked.
//     With alignments, Marian's layout: "<id> ||| <text> ||| <alignment> ||| F0= .. ||| <score>".
//   hard alignment: "s-t" pairs (0-based subword positions of source and target) for every
//     target token but eos, each aligned to its most attended source token; tokens most
//     attending the source eos get no pair. With a threshold below 1 (Marian's --alignment 0.2):
//     every pair whose attention is above it, the source eos excepted, in target order.
//   soft alignment: one group per target token (eos included), space-separated; each group the
//     attention over the source tokens (eos included), comma-separated.
// Alignments are on the subword level, from the first model's last decoder layer (heads
// averaged).
#pragma once

#include <string>
#include <vector>

#include "search/search_options.h"

namespace realmt::search {

std::string format_alignment(const Hypothesis& h, AlignmentKind kind, double threshold = 1.0);
std::string format_features(const std::vector<double>& model_log_probs);  // "F0= -1.5 F1= -2"
std::string format_nbest(size_t id, const std::string& text, const Hypothesis& h,
                         AlignmentKind kind, double threshold = 1.0);
// Shortest text that reads back as the same double.
std::string format_number(double x);

// One parsed n-best line (the alignment field, when present, stays inside `extra`).
struct NBestEntry {
  size_t id = 0;
  std::string text;
  std::vector<std::string> extra;  // fields between the text and the features
  std::string features;
  std::string score;
};
// Throws naming `where` (file:line) when the line is not "id ||| text ||| ... ||| features |||
// score".
NBestEntry parse_nbest(const std::string& line, const std::string& where);
std::string format_nbest(const NBestEntry& e);

}  // namespace realmt::search
