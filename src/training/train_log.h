// Training log: human-readable lines (stderr and the `log` file), a progress bar on a terminal,
// and the metrics file (one JSON object a line) for plotting.
#pragma once

#include <cstdio>
#include <map>
#include <string>

namespace realmt::training {

struct DisplayStats {
  int64_t epoch = 0, updates = 0, sentences = 0;  // epoch is 1-based here, as Marian prints it
  double loss_per_token = 0;                      // label-smoothed training cost a target token
  double tgt_tokens_per_s = 0;                    // target subword tokens / second, padding excluded
  double lr = 0, grad_norm = 0;
  double seconds = 0;                             // wall time since the start of this run
  size_t mem_bytes = 0;                           // peak memory of the parameters' device
  size_t mem_reserved_bytes = 0;                  // held by its caching allocator (in use + cached)
  double loss_scale = 0;                          // f16 dynamic loss scale (0: none, not shown)
  int64_t skipped_updates = 0;                    // f16 updates skipped on overflow so far
  double eta_seconds = -1;                        // < 0: unknown
};

class TrainLog {
 public:
  TrainLog(const std::string& log_path, const std::string& metrics_path, bool progress_bar);
  ~TrainLog();
  void line(const std::string& text);  // timestamped to stderr (+ log file)
  void display(const DisplayStats& s);
  void validation(int64_t updates, const std::map<std::string, double>& metrics, bool improved, int stalled);
  // Progress bar towards the next display (only on a terminal).
  void progress(double fraction, const std::string& label);

 private:
  void metrics(const std::string& json);
  FILE* log_ = nullptr;
  FILE* metrics_ = nullptr;
  bool bar_ = false;
  bool bar_shown_ = false;
};

std::string format_duration(double seconds);  // "1:02:03"

}  // namespace realmt::training
