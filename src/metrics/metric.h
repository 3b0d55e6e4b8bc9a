// The interface every metric (BLEU, chrF, TER) implements, mirroring sacreBLEU's Metric:
// per-segment sufficient statistics (as sacreBLEU keeps them), a corpus score from their
// element-wise sum, and a signature string (sacreBLEU's "nrefs:1|case:mixed|..." line).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "metrics/py_number.h"

namespace realmt::metrics {

// One score as sacreBLEU prints it.
struct Score {
  double score = 0.0;
  std::string verbose;  // BLEU only: "P1/P2/P3/P4 (BP = ...)"
};

// Ordered key/value pairs; value "yes"/"no" for booleans. Long and short key names.
struct SignatureField {
  std::string key;
  std::string short_key;
  std::string value;
};

class Signature {
 public:
  // Fields in sacreBLEU's order: nrefs, bs, ar, seed, then the metric's own, then version.
  std::vector<SignatureField> fields;
  std::string format(bool short_form) const;
  // Sets (or adds, before the metric fields) one of the common keys bs/ar/seed.
  void set_common(const std::string& key, const std::string& value);
};

// Segment statistics of a corpus: rows of num_stats() doubles (integers are exact).
struct CorpusStats {
  size_t num_stats = 0;
  std::vector<double> values;  // segments x num_stats, row-major
  size_t num_segments() const { return num_stats ? values.size() / num_stats : 0; }
  const double* row(size_t i) const { return values.data() + i * num_stats; }
};

class Metric {
 public:
  virtual ~Metric() = default;
  // "BLEU", "chrF2++", "TER".
  virtual std::string name() const = 0;
  // sacreBLEU's class key ("BLEU", "CHRF", "TER"): the order of multi-metric output.
  virtual std::string key() const = 0;
  virtual size_t num_stats() const = 0;

  // Pre-processes the references once: refs[r][i] is reference r of segment i.
  virtual void set_references(const std::vector<std::vector<std::string>>& refs) = 0;
  // Statistics of each hypothesis against the cached references (threads >= 1).
  virtual CorpusStats corpus_stats(const std::vector<std::string>& hyps, int threads) const = 0;
  // Score from summed statistics, in double precision (sacreBLEU's normal path).
  virtual Score score_from_sums(const std::vector<double>& sums) const = 0;
  // Score from float32-summed statistics the way sacreBLEU's bootstrap computes it (NumPy >= 2).
  virtual PyNum bootstrap_score(const std::vector<float>& sums) const = 0;
  // Score from int64 sums, as approximate randomization computes it (NumPy int64 arrays).
  virtual Score score_from_int_sums(const std::vector<double>& sums) const {
    return score_from_sums(sums);
  }
  virtual Signature signature() const = 0;

  // Corpus score: element-wise sum (Python sum_of_lists order), then score_from_sums.
  Score corpus_score(const CorpusStats& stats) const;
  static std::vector<double> sum_rows(const CorpusStats& stats);
};

// Number of references of the cached set (for the signature).
std::string nrefs_value(size_t nrefs);

}  // namespace realmt::metrics
