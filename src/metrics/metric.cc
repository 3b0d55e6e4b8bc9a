#include "metrics/metric.h"

#include "core/error.h"

namespace realmt::metrics {

std::string Signature::format(bool short_form) const {
  std::string s;
  for (const auto& f : fields) {
    if (!s.empty()) s += '|';
    s += short_form ? f.short_key : f.key;
    s += ':';
    s += f.value;
  }
  return s;
}

void Signature::set_common(const std::string& key, const std::string& value) {
  // Common keys come right after nrefs in the order bs, ar, seed.
  static const char* const kOrder[] = {"nrefs", "bs", "ar", "seed"};
  auto rank = [](const std::string& k) {
    for (int i = 0; i < 4; ++i) {
      if (k == kOrder[i]) return i;
    }
    return 4;
  };
  for (auto& f : fields) {
    if (f.key == key) {
      f.value = value;
      return;
    }
  }
  const std::string short_key = key == "seed" ? "rs" : key;
  size_t pos = 0;
  while (pos < fields.size() && rank(fields[pos].key) <= rank(key)) ++pos;
  fields.insert(fields.begin() + static_cast<long>(pos), {key, short_key, value});
}

std::string nrefs_value(size_t nrefs) { return std::to_string(nrefs); }

std::vector<double> Metric::sum_rows(const CorpusStats& stats) {
  // Python's sum_of_lists: left to right from 0 (a single segment is returned as is).
  std::vector<double> sums(stats.num_stats, 0.0);
  for (size_t i = 0; i < stats.num_segments(); ++i) {
    const double* r = stats.row(i);
    for (size_t j = 0; j < stats.num_stats; ++j) sums[j] += r[j];
  }
  return sums;
}

Score Metric::corpus_score(const CorpusStats& stats) const {
  REALMT_CHECK(stats.num_stats == num_stats(), "statistics of {} columns given to {} (expects {})",
               stats.num_stats, name(), num_stats());
  return score_from_sums(sum_rows(stats));
}

}  // namespace realmt::metrics
