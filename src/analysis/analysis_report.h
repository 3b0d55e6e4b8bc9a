// realmt-analyze's files (formats in analyze_files.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attention_stats.h"

namespace realmt::analysis {

struct ReportInfo {
  std::string model;
  std::vector<std::string> inputs;
  int64_t sentences = 0, skipped = 0;
};

// dir/attention.tsv and dir/attention.json (summarizes, so the values are reordered).
void write_tables(AttentionStats& stats, const std::string& dir, const ReportInfo& info);
// The kept pair's matrices with its pieces (source: pieces and </s>; target: <s> and pieces).
void write_heatmap(const AttentionStats& stats, const std::string& path, int64_t line,
                   const std::vector<std::string>& source, const std::vector<std::string>& target);

}  // namespace realmt::analysis
