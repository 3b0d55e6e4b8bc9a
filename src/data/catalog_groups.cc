#include "data/catalog_groups.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "core/error.h"

namespace realmt::data {

namespace {

class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  // Joins the two sets (the smaller index stays the root); true when they were apart.
  bool join(size_t a, size_t b) {
    a = find(a), b = find(b);
    if (a == b) return false;
    parent_[std::max(a, b)] = std::min(a, b);
    return true;
  }

 private:
  std::vector<size_t> parent_;
};

// For each pair of catalogs (a < b, key a * n + b): how many sources they share.
std::unordered_map<uint64_t, int64_t> shared_counts(const std::vector<std::vector<uint64_t>>& keys,
                                                    int64_t max_spread) {
  std::vector<std::pair<uint64_t, uint32_t>> all;
  for (size_t c = 0; c < keys.size(); ++c) {
    for (uint64_t k : keys[c]) all.emplace_back(k, uint32_t(c));
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::unordered_map<uint64_t, int64_t> shared;
  const uint64_t n = keys.size();
  for (size_t i = 0; i < all.size();) {
    size_t j = i + 1;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    if (int64_t(j - i) <= max_spread) {
      for (size_t a = i; a < j; ++a) {
        for (size_t b = a + 1; b < j; ++b) ++shared[all[a].second * n + all[b].second];
      }
    }
    i = j;
  }
  return shared;
}

size_t distinct(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return size_t(std::unique(v.begin(), v.end()) - v.begin());
}

}  // namespace

std::string catalog_domain(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() > 3 && name.ends_with(".mo")) name.resize(name.size() - 3);
  return name;
}

CatalogGroups group_catalogs(const std::vector<std::string>& domains,
                             const std::vector<std::vector<uint64_t>>& keys,
                             const CatalogGroupOptions& o) {
  REALMT_CHECK(domains.size() == keys.size(), "group_catalogs: {} domains for {} key lists",
               domains.size(), keys.size());
  const size_t n = domains.size();
  UnionFind sets(n);
  CatalogGroups r;
  std::unordered_map<std::string, size_t> first;
  for (size_t c = 0; c < n; ++c) {
    const auto [it, fresh] = first.try_emplace(domains[c], c);
    if (!fresh) r.same_domain += sets.join(it->second, c);
  }
  std::vector<size_t> size(n);
  for (size_t c = 0; c < n; ++c) size[c] = distinct(keys[c]);
  for (const auto& [pair, count] : shared_counts(keys, o.max_spread)) {
    const size_t a = pair / n, b = pair % n;
    if (count >= o.min_shared && double(count) >= o.overlap * double(std::min(size[a], size[b]))) {
      r.copies += sets.join(a, b);
    }
  }
  r.label.resize(n);
  for (size_t c = 0; c < n; ++c) {
    const size_t root = sets.find(c);
    r.label[c] = domains[root];
    r.groups += root == c;
  }
  return r;
}

}  // namespace realmt::data
