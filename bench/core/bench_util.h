// Timing helpers for benchmarks: median of repeated runs, with warm-up.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace realmt::bench {

inline double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Runs fn once to warm up, then `reps` times (at least min_seconds in total, at most max_reps);
// returns the median seconds per call.
inline double median_seconds(const std::function<void()>& fn, int reps = 5,
                             double min_seconds = 0.2, int max_reps = 200) {
  fn();
  std::vector<double> t;
  double total = 0;
  while ((static_cast<int>(t.size()) < reps || total < min_seconds) &&
         static_cast<int>(t.size()) < max_reps) {
    const double s = now_seconds();
    fn();
    const double d = now_seconds() - s;
    t.push_back(d);
    total += d;
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace realmt::bench
