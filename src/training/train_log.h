// Training log: Marian's lines (through core/log.h: stderr and every program's --log file; the
// validation lines also to the `valid-log` file), a progress bar on a terminal, and the metrics
// file (one JSON object a line, written with nlohmann-json) for plotting:
//   {"type":"train","epoch":1,"updates":200,"sentences":6400,"loss_per_token":5.12,...}
//   {"type":"valid","updates":200,"ce-mean-words":5.12,"bleu":12.3,"stalled":0}
// A value that is not finite (a diverged loss) is written as null: JSON has no NaN or Inf.
//
// The lines are Marian's (src/training/scheduler.h of Marian 1.12), field for field, so that log
// parsers written for Marian (marian-tensorboard, grep | sort | cut in recipes) read them:
//   [2024-01-02 10:11:12] Ep. 1 : Up. 200 : Sen. 12,345 : Cost 5.12345678 : Time 12.34s :
//       4321.00 words/s : gNorm 1.2345 : L.r. 3.0000e-04 : Mem 12.3 MB : ETA 0:01:02
//   [2024-01-02 10:11:12] [valid] Ep. 1 : Up. 200 : ce-mean-words : 5.12346 : new best
//   [2024-01-02 10:11:12] [valid] Ep. 1 : Up. 400 : bleu : 12.3 : stalled 1 times (last best: 12.4)
// Ep. is the 1-based epoch; Sen. the sentences of this epoch; Cost as cost-type says (below);
// Time the seconds since the last display; words/s target tokens (labels: eos included, padding
// excluded) a second since then; gNorm the exponential average of the gradient norm over
// gradient-norm-average-window updates; L.r. only with lr-report. realmt's own fields follow.
// Cost by cost-type (the training objective is always the per-token mean, see train_options.h):
//   ce-mean-words    loss / labels                       "Cost 5.12345678"
//   ce-sum           with disp-label-counts: "Cost <loss/labels> * <labels> @ <labels of the last
//                    update> after <labels so far>"; without: loss / updates
//   cross-entropy, ce-mean   loss / sentences;   perplexity   exp(loss / labels)
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/enum_names.h"

namespace realmt::training {

// cost-type: how the training line shows the cost (above).
enum class CostType { kCeMeanWords, kCeSum, kCeMean, kCrossEntropy, kPerplexity };
constexpr auto enum_names(CostType) {
  return std::to_array<EnumName<CostType>>({{CostType::kCeMeanWords, "ce-mean-words"},
                                            {CostType::kCeSum, "ce-sum"},
                                            {CostType::kCeMean, "ce-mean"},
                                            {CostType::kCrossEntropy, "cross-entropy"},
                                            {CostType::kPerplexity, "perplexity"}});
}

struct DisplayStats {
  int64_t epoch = 0, updates = 0;  // epoch is 1-based here, as Marian prints it
  int64_t sentences_in_epoch = 0;  // Marian's Sen.
  double cost_sum = 0;             // label-smoothed loss summed since the last display
  int64_t labels = 0;              // target tokens since the last display
  int64_t sentences = 0;           // sentences since the last display
  int64_t updates_since = 0;       // updates since the last display
  int64_t batch_labels = 0;        // target tokens of the last update
  int64_t labels_total = 0;        // target tokens trained on so far
  double seconds = 0;              // since the last display
  double lr = 0, grad_norm_avg = 0;
  // realmt's fields, after Marian's
  size_t mem_bytes = 0;           // peak memory of the parameters' device
  size_t mem_reserved_bytes = 0;  // held by its caching allocator (in use + cached)
  double loss_scale = 0;          // f16 dynamic loss scale (0: none, not shown)
  int64_t skipped_updates = 0;    // f16 updates skipped on overflow so far
  double eta_seconds = -1;        // < 0: unknown
  // The metrics file's
  double elapsed_seconds = 0;   // since the start of this run
  int64_t sentences_total = 0;  // sentences trained on so far
  double grad_norm = 0;         // of the last update
};

// How the training line shows the cost and the learning rate (Marian's options of these names).
struct DisplayFormat {
  CostType cost_type = CostType::kCeMeanWords;
  bool disp_label_counts = true;
  bool lr_report = false;
};

// One validation result: the metric's value, whether it is the best so far, and if not how many
// validations in a row it has not improved and its best value.
struct ValidResult {
  std::string metric;
  double value = 0;
  bool improved = false;
  int stalled = 0;
  double last_best = 0;
};

// The text of the lines, without the time stamp (tested byte for byte).
std::string format_train_line(const DisplayStats& s, const DisplayFormat& f);
std::string format_valid_line(int64_t epoch, int64_t updates, const ValidResult& r);
std::string with_commas(int64_t n);  // 1234567 -> "1,234,567"

class TrainLog {
 public:
  struct Options {
    std::string valid_log_path;  // also append the [valid] lines here
    std::string metrics_path;    // JSON lines
    bool progress_bar = true;    // on a terminal only
    bool quiet = false;          // nothing on stderr (the files still get every line)
    DisplayFormat format;
  };
  explicit TrainLog(const Options& options);
  ~TrainLog();
  void line(const std::string& text);  // a log line (core/log.h: stderr unless quiet, --log file)
  void display(const DisplayStats& s);
  void validation(int64_t epoch, int64_t updates, const std::vector<ValidResult>& results);
  // Progress bar towards the next display (only on a terminal).
  void progress(double fraction, const std::string& label);

 private:
  void write(const std::string& text, FILE* also);
  void metrics(const std::string& json_line);
  FILE* valid_log_ = nullptr;
  FILE* metrics_ = nullptr;
  bool bar_ = false;
  bool bar_shown_ = false;
  bool quiet_ = false;
  DisplayFormat format_;
};

std::string format_duration(double seconds);  // "1:02:03"

}  // namespace realmt::training
