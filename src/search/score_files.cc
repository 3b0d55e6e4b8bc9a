#include "search/score_files.h"

#include <cmath>

#include "data/line_reader.h"
#include "search/output_format.h"

namespace realmt::search {

double ScoreSummary::perplexity() const {
  return std::exp(-log_prob / static_cast<double>(std::max<int64_t>(target_tokens, 1)));
}

ScoreSummary score_files(const ScoreCliOptions& o, const Scorer& scorer, const data::Vocab& vocab,
                         std::ostream& out) {
  const std::vector<std::string> src_lines = data::read_lines(o.train_sets[0]);
  const std::vector<std::string> tgt_lines = data::read_lines(o.train_sets[1]);
  std::vector<std::vector<int32_t>> src, tgt;
  std::vector<NBestEntry> nbest;
  if (o.n_best) {
    std::vector<std::vector<int32_t>> encoded(src_lines.size());
    for (size_t i = 0; i < src_lines.size(); ++i) encoded[i] = vocab.encode(src_lines[i]);
    for (size_t i = 0; i < tgt_lines.size(); ++i) {
      const std::string where = o.train_sets[1] + ":" + std::to_string(i + 1);
      nbest.push_back(parse_nbest(tgt_lines[i], where));
      REALMT_CHECK(nbest.back().id < src_lines.size(), "{}: n-best id {} but {} has {} lines",
                   where, nbest.back().id, o.train_sets[0], src_lines.size());
      src.push_back(encoded[nbest.back().id]);
      tgt.push_back(vocab.encode_target(nbest.back().text));
    }
  } else {
    REALMT_CHECK(src_lines.size() == tgt_lines.size(), "train-sets: {} has {} lines but {} has {}",
                 o.train_sets[0], src_lines.size(), o.train_sets[1], tgt_lines.size());
    for (size_t i = 0; i < src_lines.size(); ++i) {
      src.push_back(vocab.encode(src_lines[i]));
      tgt.push_back(vocab.encode_target(tgt_lines[i]));
    }
  }
  // A huge line would ask the scorer for O(length^2) attention memory: refuse it by name.
  // Marian's max-length, eos counted; realmt-score refuses rather than skips (a score per line).
  const int64_t limit = o.max_length;
  for (size_t i = 0; i < src.size(); ++i) {
    const size_t line = o.n_best ? nbest[i].id + 1 : i + 1;
    REALMT_CHECK(static_cast<int64_t>(src[i].size()) + 1 <= limit,
                 "{}:{}: {} subwords (eos counted), more than max-length {}", o.train_sets[0], line,
                 src[i].size() + 1, limit);
    REALMT_CHECK(static_cast<int64_t>(tgt[i].size()) + 1 <= limit,
                 "{}:{}: {} subwords (eos counted), more than max-length {}", o.train_sets[1],
                 i + 1, tgt[i].size() + 1, limit);
  }
  ScoreOptions so;
  so.normalize = o.normalize;
  so.word_penalty = o.word_penalty;
  so.weights = o.model.weights;
  so.mini_batch = o.model.mini_batch;
  const std::vector<PairScore> scores = scorer.score(src, tgt, so);
  ScoreSummary sum;
  for (size_t i = 0; i < scores.size(); ++i) {
    const PairScore& p = scores[i];
    ++sum.sentences;
    sum.target_tokens += static_cast<int64_t>(p.token_log_probs.size());
    sum.log_prob += p.log_prob;
    if (o.n_best) {
      NBestEntry e = nbest[i];
      e.features += " " + o.n_best_feature + "= " + format_number(p.score);
      out << format_nbest(e) << '\n';
    } else if (o.summary.empty()) {
      out << format_number(p.score);
      if (o.word_scores) {
        out << " |||";
        for (float x : p.token_log_probs) out << ' ' << format_number(x);
      }
      out << '\n';
    }
  }
  if (o.summary == "cross-entropy" || o.summary == "ce-mean")  // Marian's: per sentence
    out << format_number(-sum.log_prob / static_cast<double>(std::max<size_t>(sum.sentences, 1)))
        << '\n';
  else if (o.summary == "perplexity")
    out << format_number(sum.perplexity()) << '\n';
  else if (o.summary == "ce-sum")
    out << format_number(-sum.log_prob) << '\n';
  else if (o.summary == "ce-mean-words")
    out << format_number(-sum.log_prob /
                         static_cast<double>(std::max<int64_t>(sum.target_tokens, 1)))
        << '\n';
  return sum;
}

}  // namespace realmt::search
