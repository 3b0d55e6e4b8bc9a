#include "metrics/significance.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "core/error.h"
#include "metrics/numpy_rng.h"

namespace realmt::metrics {

std::optional<uint64_t> seed_from_env(std::string* label) {
  const char* env = std::getenv("SACREBLEU_SEED");
  std::string s = env ? env : "12345";
  std::string lower = s;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "none") {
    if (label) *label = "none";
    return std::nullopt;
  }
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  REALMT_CHECK(end && *end == '\0' && v >= 0,
               "SACREBLEU_SEED must be a non-negative integer or 'none', got '{}'", s);
  if (label) *label = std::to_string(v);
  return static_cast<uint64_t>(v);
}

namespace {

// NumPy's <type>_pairwise_sum with a zero start (verified against np.mean).
template <typename T>
T pairwise(const T* a, size_t n) {
  if (n < 8) {
    T res = 0;
    for (size_t i = 0; i < n; ++i) res = static_cast<T>(res + a[i]);
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] = static_cast<T>(r[j] + a[i + j]);
    }
    T res =
        static_cast<T>(static_cast<T>(static_cast<T>(r[0] + r[1]) + static_cast<T>(r[2] + r[3])) +
                       static_cast<T>(static_cast<T>(r[4] + r[5]) + static_cast<T>(r[6] + r[7])));
    for (; i < n; ++i) res = static_cast<T>(res + a[i]);
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return static_cast<T>(pairwise(a, n2) + pairwise(a + n2, n - n2));
}

// np.array([...]) of scores: float32 only when every score is a float32 scalar.
bool all_f32(const std::vector<PyNum>& v) {
  for (const auto& x : v) {
    if (!x.f32) return false;
  }
  return !v.empty();
}

double cast(double v, bool f32) { return f32 ? static_cast<double>(static_cast<float>(v)) : v; }

}  // namespace

double numpy_pairwise_sum(const std::vector<double>& values, bool f32) {
  if (f32) {
    std::vector<float> f(values.begin(), values.end());
    return pairwise(f.data(), f.size());
  }
  return pairwise(values.data(), values.size());
}

std::vector<PyNum> bootstrap_scores(const Metric& metric, const CorpusStats& stats, size_t n,
                                    uint64_t seed) {
  const size_t N = stats.num_segments(), k = stats.num_stats;
  REALMT_CHECK(N > 0, "bootstrap resampling needs at least one segment");
  NumpyRng rng(seed);
  const std::vector<uint32_t> idx = rng.choice(static_cast<uint32_t>(N), n);
  // np.array(stats, dtype='float32'), then each resample's sum(0): row after row in float32.
  std::vector<float> f32(stats.values.begin(), stats.values.end());
  std::vector<PyNum> scores(n);
  std::vector<float> sums(k);
  for (size_t r = 0; r < n; ++r) {
    std::fill(sums.begin(), sums.end(), 0.0f);
    const uint32_t* row = idx.data() + r * N;
    for (size_t j = 0; j < N; ++j) {
      const float* s = f32.data() + static_cast<size_t>(row[j]) * k;
      for (size_t c = 0; c < k; ++c) sums[c] += s[c];
    }
    scores[r] = metric.bootstrap_score(sums);
  }
  return scores;
}

Confidence estimate_ci_python(const std::vector<PyNum>& scores) {
  std::vector<PyNum> s = scores;
  std::stable_sort(s.begin(), s.end(), [](const PyNum& a, const PyNum& b) { return a.v < b.v; });
  const size_t n = s.size();
  const size_t lo = n / 40, hi = n - lo - 1;
  Confidence c;
  c.ci = (0.5 * (s[hi] - s[lo])).v;
  // statistics.mean is exact: sum in quad precision (exact for scores of similar magnitude),
  // one rounding to double; a float32 result type converts that double to float32.
  __float128 total = 0;
  for (const auto& x : s) total += static_cast<__float128>(x.v);
  const auto mean = static_cast<double>(total / static_cast<__float128>(n));
  c.mean = cast(mean, all_f32(s));
  return c;
}

Confidence estimate_ci_numpy(const std::vector<PyNum>& scores) {
  const bool f32 = all_f32(scores);
  std::vector<double> s;
  s.reserve(scores.size());
  for (const auto& x : scores) s.push_back(x.v);
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  const size_t lo = n / 40, hi = n - lo - 1;
  Confidence c;
  c.ci = cast(0.5 * cast(s[hi] - s[lo], f32), f32);
  // np.mean: pairwise sum in the array's type, divided by the count in that type.
  const double sum = numpy_pairwise_sum(s, f32);
  c.mean = f32 ? static_cast<double>(static_cast<float>(sum) / static_cast<float>(n))
               : sum / static_cast<double>(n);
  return c;
}

PairedResult paired_bootstrap(const Metric& metric, const CorpusStats& baseline,
                              const CorpusStats& system, size_t n, uint64_t seed) {
  REALMT_CHECK(baseline.num_segments() == system.num_segments(),
               "paired test: systems differ in length");
  const double bl_score = metric.corpus_score(baseline).score;
  PairedResult res;
  res.score = metric.corpus_score(system).score;
  const std::vector<PyNum> bl = bootstrap_scores(metric, baseline, n, seed);
  const std::vector<PyNum> sys = bootstrap_scores(metric, system, n, seed);
  const Confidence c = estimate_ci_numpy(sys);
  res.mean = c.mean;
  res.ci = c.ci;
  // sample_diffs = |sys - bl| and its centring run in float32 only when both arrays are float32.
  const bool f32 = all_f32(bl) && all_f32(sys);
  std::vector<double> diffs(n);
  for (size_t r = 0; r < n; ++r) diffs[r] = cast(std::fabs(cast(sys[r].v - bl[r].v, f32)), f32);
  double mean = numpy_pairwise_sum(diffs, f32);
  mean = f32 ? static_cast<double>(static_cast<float>(mean) / static_cast<float>(n))
             : mean / static_cast<double>(n);
  // The comparison with the Python-float difference casts it to the array's type.
  const double real_diff = cast(std::fabs(bl_score - res.score), f32);
  size_t count = 0;
  for (size_t r = 0; r < n; ++r) count += cast(diffs[r] - mean, f32) > real_diff;
  res.p_value = static_cast<double>(count + 1) / static_cast<double>(n + 1);
  return res;
}

PairedResult paired_approximate_randomization(const Metric& metric, const CorpusStats& baseline,
                                              const CorpusStats& system, size_t n, uint64_t seed) {
  const size_t N = baseline.num_segments(), k = baseline.num_stats;
  REALMT_CHECK(N == system.num_segments(), "paired test: systems differ in length");
  const double bl_score = metric.corpus_score(baseline).score;
  PairedResult res;
  res.score = metric.corpus_score(system).score;
  const double real_diff = std::fabs(bl_score - res.score);
  NumpyRng rng(seed);
  const std::vector<uint8_t> pos = rng.bools(n, N);
  size_t count = 0;
  std::vector<double> a(k), b(k);
  for (size_t t = 0; t < n; ++t) {
    std::fill(a.begin(), a.end(), 0.0);
    std::fill(b.begin(), b.end(), 0.0);
    const uint8_t* m = pos.data() + t * N;
    for (size_t i = 0; i < N; ++i) {
      const double* from_a = m[i] ? baseline.row(i) : system.row(i);
      const double* from_b = m[i] ? system.row(i) : baseline.row(i);
      for (size_t c = 0; c < k; ++c) {
        a[c] += from_a[c];
        b[c] += from_b[c];
      }
    }
    const double sa = metric.score_from_int_sums(a).score, sb = metric.score_from_int_sums(b).score;
    count += std::fabs(sa - sb) > real_diff;
  }
  res.p_value = static_cast<double>(count + 1) / static_cast<double>(n + 1);
  return res;
}

}  // namespace realmt::metrics
