// Bootstrap confidence intervals and paired significance tests exactly as sacreBLEU 2.6.0 runs
// them with NumPy >= 2 (sacreBLEU's significance.py and Score.estimate_ci):
// the same random draws (NumpyRng), float32 statistics in the bootstrap, NumPy's pairwise mean.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metric.h"

namespace realmt::metrics {

// SACREBLEU_SEED: default "12345"; "none" (any case) means OS entropy (returned as nullopt).
std::optional<uint64_t> seed_from_env(std::string* label);

// Mean and half-width of the central 95% interval of bootstrap scores.
struct Confidence {
  double mean = 0.0;
  double ci = 0.0;
};

// Scores of n bootstrap resamples of the segments (rng.choice(N, (n, N)) from default_rng(seed)).
std::vector<PyNum> bootstrap_scores(const Metric& metric, const CorpusStats& stats, size_t n,
                                    uint64_t seed);

// Score.estimate_ci (single-system -ci): Python sorted(), statistics.mean (exact).
Confidence estimate_ci_python(const std::vector<PyNum>& scores);
// significance.estimate_ci (paired bootstrap): np.sort, np.mean (pairwise summation).
Confidence estimate_ci_numpy(const std::vector<PyNum>& scores);

struct PairedResult {
  double score = 0.0;
  std::optional<double> p_value;
  std::optional<double> mean;
  std::optional<double> ci;
};

// Paired bootstrap resampling of `system` against `baseline` (both statistics of one metric).
// baseline_score and system score are the corpus scores.
PairedResult paired_bootstrap(const Metric& metric, const CorpusStats& baseline,
                              const CorpusStats& system, size_t n, uint64_t seed);
// Paired approximate randomization (no confidence interval, as the CLI).
PairedResult paired_approximate_randomization(const Metric& metric, const CorpusStats& baseline,
                                              const CorpusStats& system, size_t n, uint64_t seed);

// NumPy's pairwise summation (add.reduce) of a contiguous array, in float or double.
double numpy_pairwise_sum(const std::vector<double>& values, bool f32);

}  // namespace realmt::metrics
