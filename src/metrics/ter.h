// TER exactly as sacreBLEU 2.6.0 computes it (its metrics/ter.py): the Tercom tokenizer,
// the beam edit distance with its tie order, and the greedy shift search with its caps.
// Statistics per segment: [best_edits, average reference length].
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "metrics/metric.h"

namespace realmt::metrics {

struct TerOptions {
  bool normalized = false;
  bool no_punct = false;
  bool asian_support = false;
  bool case_sensitive = false;  // default TER lower-cases
};

// sacreBLEU's TercomTokenizer: the returned string's split() gives the words.
std::string ter_tokenize(std::string_view line, const TerOptions& options);

// (edits, reference length) for hypothesis and reference words given as ids.
std::pair<long long, long long> translation_edit_rate(const std::vector<uint32_t>& hyp,
                                                      const std::vector<uint32_t>& ref);

class Ter final : public Metric {
 public:
  explicit Ter(TerOptions options) : options_(options) {}
  std::string name() const override { return "TER"; }
  std::string key() const override { return "TER"; }
  size_t num_stats() const override { return 2; }
  void set_references(const std::vector<std::vector<std::string>>& refs) override;
  CorpusStats corpus_stats(const std::vector<std::string>& hyps, int threads) const override;
  Score score_from_sums(const std::vector<double>& sums) const override;
  PyNum bootstrap_score(const std::vector<float>& sums) const override;
  Signature signature() const override;

 private:
  TerOptions options_;
  size_t nrefs_ = 0;
  std::vector<std::vector<std::string>> refs_;  // tokenized, [segment][reference]
};

}  // namespace realmt::metrics
