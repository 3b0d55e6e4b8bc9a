#include "core/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string_view>

namespace realmt::log {

namespace {
std::atomic<Level> g_level{Level::kInfo};
std::mutex g_mutex;
std::FILE* g_file = nullptr;  // guarded by g_mutex
const char* name(Level l) {
  switch (l) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
    case Level::kOff: return "off";
  }
  return "?";
}

std::string stamp_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  return stamp;
}

void emit(const std::string& text, bool to_stderr, bool to_file) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (to_stderr) std::fprintf(stderr, "%s\n", text.c_str());
  if (to_file && g_file != nullptr) {
    std::fprintf(g_file, "%s\n", text.c_str());
    std::fflush(g_file);
  }
}

// "[time] " ("[level] " but for info) "message"; a message of several lines (a table) gets the
// prefix on each, so that every line of the log is time-stamped, and loses its final newlines.
// Built by appends: GCC 12 at -O2 for plain x86-64 warns (-Wrestrict, a false positive) on
// "[" + std::string.
std::string text_of(Level l, const std::string& message) {
  std::string prefix = "[";
  prefix += stamp_now();
  prefix += "] ";
  if (l != Level::kInfo) {
    prefix += "[";
    prefix += name(l);
    prefix += "] ";
  }
  const size_t end = message.find_last_not_of('\n');
  const std::string_view body =
      std::string_view(message).substr(0, end == std::string::npos ? 0 : end + 1);
  std::string text;
  size_t start = 0;
  for (;;) {
    const size_t nl = body.find('\n', start);
    text += prefix;
    text += body.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (nl == std::string_view::npos) break;
    text += '\n';
    start = nl + 1;
  }
  return text;
}
}  // namespace

void set_level(Level l) { g_level.store(l); }
Level level() { return g_level.load(std::memory_order_relaxed); }

Level parse_level(const std::string& s) {
  for (Level l : {Level::kDebug, Level::kInfo, Level::kWarn, Level::kError, Level::kOff})
    if (s == name(l)) return l;
  if (s == "trace") return Level::kDebug;
  if (s == "err" || s == "critical") return Level::kError;
  REALMT_FAIL("unknown log level '{}' (use trace, debug, info, warn, err(or), critical or off)", s);
}

void write(Level l, const std::string& message) {
  if (l < level() || l == Level::kOff) return;
  emit(text_of(l, message), true, true);
}

void line(const std::string& text, bool quiet) {
  if (level() > Level::kInfo) return;
  emit(text_of(Level::kInfo, text), !quiet, true);
}

void file_only(Level l, const std::string& message) {
  if (l < level() || l == Level::kOff) return;
  emit(text_of(l, message), false, true);
}

std::string stamped(const std::string& text) { return text_of(Level::kInfo, text); }

void set_file(const std::string& path) {
  std::FILE* f = nullptr;
  if (!path.empty()) {
    f = std::fopen(path.c_str(), "a");
    REALMT_CHECK(f != nullptr, "log: cannot open {} for appending", path);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_file != nullptr) std::fclose(g_file);
  g_file = f;
}

bool has_file() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_file != nullptr;
}

}  // namespace realmt::log
