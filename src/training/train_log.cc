#include "training/train_log.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/log.h"

namespace realmt::training {

namespace {

std::string printf_text(const char* fmt, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

FILE* open_append(const std::string& path, const char* option) {
  if (path.empty()) return nullptr;
  FILE* f = std::fopen(path.c_str(), "a");
  REALMT_CHECK(f != nullptr, "{}: cannot open '{}' for appending: {}", option, path,
               std::strerror(errno));
  return f;
}

// Marian writes costs with 8 decimals, times and speeds with 2, gNorm with 4, L.r. as %.4e,
// and validation values as fmt's "{}" of a float: 6 significant digits.
std::string cost_text(const DisplayStats& s, const DisplayFormat& f) {
  const double per_label = s.labels > 0 ? s.cost_sum / static_cast<double>(s.labels) : 0.0;
  std::string out = "Cost ";
  if (f.cost_type == CostType::kCeSum && f.disp_label_counts) {
    out += printf_text("%.8f", per_label) + " * " + with_commas(s.labels);
    if (s.batch_labels > 0) out += " @ " + with_commas(s.batch_labels);
    return out + " after " + with_commas(s.labels_total);
  }
  if (f.cost_type == CostType::kCeSum)
    return out + printf_text("%.8f", s.cost_sum / std::max<int64_t>(s.updates_since, 1));
  if (f.cost_type == CostType::kPerplexity) return out + printf_text("%.8f", std::exp(per_label));
  if (f.cost_type == CostType::kCrossEntropy || f.cost_type == CostType::kCeMean)
    return out + printf_text("%.8f", s.cost_sum / std::max<int64_t>(s.sentences, 1));
  return out + printf_text("%.8f", per_label);  // ce-mean-words
}

}  // namespace

std::string with_commas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

std::string format_train_line(const DisplayStats& s, const DisplayFormat& f) {
  std::string text = "Ep. " + std::to_string(s.epoch) + " : Up. " + std::to_string(s.updates) +
                     " : Sen. " + with_commas(s.sentences_in_epoch) + " : " + cost_text(s, f);
  text += " : Time " + printf_text("%.2f", s.seconds) + "s : " +
          printf_text("%.2f", s.seconds > 0 ? static_cast<double>(s.labels) / s.seconds : 0.0) +
          " words/s : gNorm " + printf_text("%.4f", s.grad_norm_avg);
  if (f.lr_report) text += " : L.r. " + printf_text("%.4e", s.lr);
  // realmt's fields follow Marian's.
  text += " : Mem " + printf_text("%.1f", s.mem_bytes / 1048576.0) + " MB";
  if (s.mem_reserved_bytes > 0)
    text += " (reserved " + printf_text("%.1f", s.mem_reserved_bytes / 1048576.0) + " MB)";
  text += " : ETA " + (s.eta_seconds < 0 ? std::string("?") : format_duration(s.eta_seconds));
  if (s.loss_scale > 0)
    text += " : Loss scale " + printf_text("%g", s.loss_scale) + " (" +
            std::to_string(s.skipped_updates) + " skipped)";
  return text;
}

std::string format_valid_line(int64_t epoch, int64_t updates, const ValidResult& r) {
  std::string text = "[valid] Ep. " + std::to_string(epoch) + " : Up. " + std::to_string(updates) +
                     " : " + r.metric + " : " + printf_text("%g", r.value) + " : ";
  if (r.improved) return text + "new best";
  return text + "stalled " + std::to_string(r.stalled) +
         " times (last best: " + printf_text("%g", r.last_best) + ")";
}

TrainLog::TrainLog(const Options& o) : quiet_(o.quiet), format_(o.format) {
  valid_log_ = open_append(o.valid_log_path, "valid-log");
  metrics_ = open_append(o.metrics_path, "metrics-file");
  bar_ = o.progress_bar && !o.quiet && isatty(STDERR_FILENO);
}

TrainLog::~TrainLog() {
  for (FILE* f : {valid_log_, metrics_})
    if (f) std::fclose(f);
}

void TrainLog::write(const std::string& text, FILE* also) {
  if (bar_shown_ && !quiet_) {
    std::fprintf(stderr, "\r\033[K");  // the line replaces the progress bar
    bar_shown_ = false;
  }
  log::line(text, quiet_);
  if (also) {
    std::fprintf(also, "%s\n", log::stamped(text).c_str());
    std::fflush(also);
  }
}

void TrainLog::line(const std::string& text) { write(text, nullptr); }

namespace {

// Object keys in the order written (nlohmann's ordered_json), so that "type" comes first.
// nlohmann writes a NaN or an infinity as null (JSON has neither), and escapes every string.
using Json = nlohmann::ordered_json;

}  // namespace

void TrainLog::display(const DisplayStats& s) {
  line(format_train_line(s, format_));
  const double per_label = s.labels ? s.cost_sum / static_cast<double>(s.labels) : 0;
  Json j = {{"type", "train"},
            {"epoch", s.epoch},
            {"updates", s.updates},
            {"sentences", s.sentences_total},
            {"loss_per_token", per_label},
            {"tgt_tokens_per_s", s.seconds > 0 ? static_cast<double>(s.labels) / s.seconds : 0.0},
            {"lr", s.lr},
            {"grad_norm", s.grad_norm},
            {"mem_bytes", s.mem_bytes},
            {"mem_reserved_bytes", s.mem_reserved_bytes},
            {"seconds", s.elapsed_seconds},
            {"grad_norm_avg", s.grad_norm_avg},
            {"epoch_sentences", s.sentences_in_epoch}};
  if (s.loss_scale > 0) {
    j["loss_scale"] = s.loss_scale;
    j["skipped_updates"] = s.skipped_updates;
  }
  metrics(j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

void TrainLog::validation(int64_t epoch, int64_t updates, const std::vector<ValidResult>& results) {
  Json j = {{"type", "valid"}, {"updates", updates}};
  for (const ValidResult& r : results) {
    write(format_valid_line(epoch, updates, r), valid_log_);
    j[r.metric] = r.value;
  }
  j["stalled"] = results.empty() ? 0 : results[0].stalled;
  metrics(j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

void TrainLog::progress(double fraction, const std::string& label) {
  if (!bar_) return;
  const int width = 30;
  const int filled = static_cast<int>(std::min(1.0, std::max(0.0, fraction)) * width);
  std::fprintf(stderr, "\r[%.*s%*s] %s", filled, "##############################", width - filled,
               "", label.c_str());
  std::fflush(stderr);
  bar_shown_ = true;
}

void TrainLog::metrics(const std::string& json_line) {
  if (!metrics_) return;
  std::fprintf(metrics_, "%s\n", json_line.c_str());
  std::fflush(metrics_);
}

}  // namespace realmt::training
