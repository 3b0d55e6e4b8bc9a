// Groups of gettext catalogs that must stay on one side of a train/dev/test split: copies of one
// catalog shipped by two packages (the same text domain), and forks or versions of one catalog
// under another name (most of their source strings shared). realmt-data mo2pairs --groups-out
// labels each pair with its catalog's group for realmt-data split --groups.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace realmt::data {

// The text domain of a catalog: its file name without ".mo" (".../LC_MESSAGES/gtk30.mo": gtk30).
std::string catalog_domain(const std::string& path);

struct CatalogGroupOptions {
  double overlap = 0.5;     // catalogs sharing this share of the smaller one's sources: one group
  int64_t min_shared = 20;  // ... and at least this many sources (tiny catalogs join nothing)
  int64_t max_spread = 64;  // sources found in more catalogs than this ("Cancel") are not counted
};

struct CatalogGroups {
  std::vector<std::string> label;  // per catalog: its group's label (the first member's domain)
  int64_t groups = 0;              // distinct groups
  int64_t same_domain = 0;         // catalogs joined to an earlier one of the same domain
  int64_t copies = 0;              // further joins for shared sources
};

// keys[i]: hashes of catalog i's sources as compared (any order, repeats allowed).
CatalogGroups group_catalogs(const std::vector<std::string>& domains,
                             const std::vector<std::vector<uint64_t>>& keys,
                             const CatalogGroupOptions& options);

}  // namespace realmt::data
