// sacreBLEU's output formats (its utils.py and compat.py), byte for byte: single-system text/JSON,
// sentence lines, multi-system JSON, fancy_grid and latex_booktabs tables, paired-test tables and
// JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "metrics/metric.h"
#include "metrics/significance.h"

namespace realmt::metrics {

// Score.format: one metric's text line, JSON object or bare score.
struct ScoreLine {
  std::string name;
  double score = 0.0;
  std::string verbose;           // BLEU only
  std::optional<Confidence> ci;  // shown only when mean > 0
  // JSON only, after sacreBLEU's keys: "implementation": the program that computed the score
  // (docs/sacrebleu.md: the signature stays sacreBLEU's so that scores compare). Empty: none.
  std::string implementation;
};
std::string format_score(const ScoreLine& s, int width, bool score_only,
                         const std::string& signature, bool json);

// print_single_results: JSON objects in a list, or text lines aligned on their first '='.
std::string single_results(const std::vector<std::string>& results, bool json);

// One column of a multi-system result: the metric name and one cell per system.
struct ResultColumn {
  std::string name;
  std::vector<std::string> plain;    // non-paired: "%.wf" strings
  std::vector<PairedResult> paired;  // paired tests
};

struct TableRequest {
  std::vector<std::string> systems;
  std::vector<ResultColumn> columns;
  std::vector<std::pair<std::string, std::string>> signatures;  // name, signature
  bool json = true;
  bool latex =
      false;  // -f latex: a latex_booktabs table (p-values on the score's line), else fancy_grid
  int width = 1;
  bool paired_bs = false, paired_ar = false;
  int paired_n = 0;
};
std::string results_table(const TableRequest& r);

}  // namespace realmt::metrics
