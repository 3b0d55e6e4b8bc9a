#include "training/train_log.h"

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <ctime>

#include "core/error.h"

namespace realmt::training {

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

TrainLog::TrainLog(const std::string& log_path, const std::string& metrics_path, bool progress_bar) {
  if (!log_path.empty()) {
    log_ = std::fopen(log_path.c_str(), "a");
    REALMT_CHECK(log_ != nullptr, "log: cannot open '{}' for appending: {}", log_path, std::strerror(errno));
  }
  if (!metrics_path.empty()) {
    metrics_ = std::fopen(metrics_path.c_str(), "a");
    REALMT_CHECK(metrics_ != nullptr, "metrics-file: cannot open '{}' for appending: {}", metrics_path,
                 std::strerror(errno));
  }
  bar_ = progress_bar && isatty(STDERR_FILENO);
}

TrainLog::~TrainLog() {
  if (log_) std::fclose(log_);
  if (metrics_) std::fclose(metrics_);
}

void TrainLog::line(const std::string& text) {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  if (bar_shown_) {
    std::fprintf(stderr, "\r\033[K");
    bar_shown_ = false;
  }
  std::fprintf(stderr, "[%s] %s\n", stamp, text.c_str());
  if (log_) {
    std::fprintf(log_, "[%s] %s\n", stamp, text.c_str());
    std::fflush(log_);
  }
}

void TrainLog::display(const DisplayStats& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "Ep. %lld : Up. %lld : Sen. %lld : Cost %.6f : Time %.1fs : %.1f tgt tokens/s : L.r. %.4e : "
                "gNorm %.4f : Mem %.1f MB : ETA %s",
                static_cast<long long>(s.epoch), static_cast<long long>(s.updates),
                static_cast<long long>(s.sentences), s.loss_per_token, s.seconds, s.tgt_tokens_per_s, s.lr,
                s.grad_norm, s.mem_bytes / 1048576.0, s.eta_seconds < 0 ? "?" : format_duration(s.eta_seconds).c_str());
  std::string text = buf;
  std::snprintf(buf, sizeof buf, " (reserved %.1f MB)", s.mem_reserved_bytes / 1048576.0);
  if (s.mem_reserved_bytes > 0) text.insert(text.find(" MB : ETA") + 3, buf);
  if (s.loss_scale > 0) {
    std::snprintf(buf, sizeof buf, " : Loss scale %g (%lld skipped)", s.loss_scale,
                  static_cast<long long>(s.skipped_updates));
    text += buf;
  }
  line(text);
  std::snprintf(buf, sizeof buf,
                "{\"type\":\"train\",\"epoch\":%lld,\"updates\":%lld,\"sentences\":%lld,\"loss_per_token\":%.9g,"
                "\"tgt_tokens_per_s\":%.6g,\"lr\":%.9g,\"grad_norm\":%.9g,\"mem_bytes\":%zu,"
                "\"mem_reserved_bytes\":%zu,\"seconds\":%.3f",
                static_cast<long long>(s.epoch), static_cast<long long>(s.updates),
                static_cast<long long>(s.sentences), s.loss_per_token, s.tgt_tokens_per_s, s.lr, s.grad_norm,
                s.mem_bytes, s.mem_reserved_bytes, s.seconds);
  std::string json = buf;
  if (s.loss_scale > 0) {
    std::snprintf(buf, sizeof buf, ",\"loss_scale\":%.9g,\"skipped_updates\":%lld", s.loss_scale,
                  static_cast<long long>(s.skipped_updates));
    json += buf;
  }
  metrics(json + "}");
}

void TrainLog::validation(int64_t updates, const std::map<std::string, double>& m, bool improved, int stalled) {
  std::string text = "Up. " + std::to_string(updates) + " : Valid";
  std::string json = "{\"type\":\"valid\",\"updates\":" + std::to_string(updates);
  char buf[128];
  for (const auto& [name, value] : m) {
    std::snprintf(buf, sizeof buf, " : %s %.6f", name.c_str(), value);
    text += buf;
    std::snprintf(buf, sizeof buf, ",\"%s\":%.9g", name.c_str(), value);
    json += buf;
  }
  text += improved ? " : new best" : " : stalled " + std::to_string(stalled) + " times";
  json += ",\"stalled\":" + std::to_string(stalled) + "}";
  line(text);
  metrics(json);
}

void TrainLog::progress(double fraction, const std::string& label) {
  if (!bar_) return;
  const int width = 30;
  const int filled = static_cast<int>(std::min(1.0, std::max(0.0, fraction)) * width);
  std::fprintf(stderr, "\r[%.*s%*s] %s", filled, "##############################", width - filled, "", label.c_str());
  std::fflush(stderr);
  bar_shown_ = true;
}

void TrainLog::metrics(const std::string& json) {
  if (!metrics_) return;
  std::fprintf(metrics_, "%s\n", json.c_str());
  std::fflush(metrics_);
}

}  // namespace realmt::training
