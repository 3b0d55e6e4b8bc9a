// chrF and chrF++ exactly as sacreBLEU 2.6.0 computes them (its metrics/chrf.py).
// Statistics per segment: [hyp, ref, match] for char orders 1..nc, then word orders 1..nw,
// taken from the reference with the strictly highest sentence F.
#pragma once

#include <string>
#include <vector>

#include "metrics/metric.h"

namespace realmt::metrics {

struct ChrfOptions {
  int char_order = 6;
  int word_order = 0;  // 2 = chrF++
  int beta = 2;
  bool lowercase = false;
  bool whitespace = false;     // keep whitespace in character n-grams
  bool eps_smoothing = false;  // chrF++.py/NLTK/Moses smoothing instead of effective order
};

// sacreBLEU's CHRF._compute_f_score; stats are Python ints (double path) or float32 (bootstrap).
PyNum chrf_f_score(const std::vector<PyNum>& stats, const ChrfOptions& options);

// chrF's word split: Python split(), then one ASCII punctuation mark split off each end.
void chrf_words(std::string_view line, std::vector<std::string_view>& out);

class Chrf final : public Metric {
 public:
  explicit Chrf(ChrfOptions options);
  std::string name() const override;
  std::string key() const override { return "CHRF"; }
  size_t num_stats() const override {
    return 3 * static_cast<size_t>(options_.char_order + options_.word_order);
  }
  void set_references(const std::vector<std::vector<std::string>>& refs) override;
  CorpusStats corpus_stats(const std::vector<std::string>& hyps, int threads) const override;
  Score score_from_sums(const std::vector<double>& sums) const override;
  PyNum bootstrap_score(const std::vector<float>& sums) const override;
  Signature signature() const override;

 private:
  ChrfOptions options_;
  size_t nrefs_ = 0;
  std::vector<std::vector<std::string>> refs_;  // lower-cased when asked, [segment][reference]
};

}  // namespace realmt::metrics
