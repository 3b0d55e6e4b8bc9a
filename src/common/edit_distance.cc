#include "common/edit_distance.h"

#include <algorithm>

namespace realmt {

size_t edit_distance(const std::string& a, const std::string& b) {
  // Three rows of the dynamic-programming table: the swap rule looks two rows back.
  const size_t n = b.size();
  std::vector<size_t> prev2(n + 1), prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= n; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::string closest_name(const std::string& wrong, const std::vector<std::string>& valid) {
  std::string best;
  size_t best_distance = static_cast<size_t>(-1);
  for (const auto& name : valid) {
    const size_t d = edit_distance(wrong, name);
    if (d < best_distance) best_distance = d, best = name;
  }
  return best;
}

}  // namespace realmt
