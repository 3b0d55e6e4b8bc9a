// Helpers for the metrics tests: corpus scores through the same path as the CLI.
#pragma once

#include <string>
#include <vector>

#include "metrics/metric.h"

namespace realmt::metrics::testing {

// refs[r][i]: reference r of segment i.
inline Score corpus(Metric& m, const std::vector<std::string>& hyps,
                    const std::vector<std::vector<std::string>>& refs) {
  m.set_references(refs);
  return m.corpus_score(m.corpus_stats(hyps, 2));
}

inline Score sentence(Metric& m, const std::string& hyp, const std::vector<std::string>& refs) {
  std::vector<std::vector<std::string>> r;
  for (const auto& x : refs) r.push_back({x});
  return corpus(m, {hyp}, r);
}

}  // namespace realmt::metrics::testing
