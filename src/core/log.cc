#include "core/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace realmt::log {

namespace {
std::atomic<Level> g_level{Level::kInfo};
std::mutex g_mutex;
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
}  // namespace

void set_level(Level l) { g_level.store(l); }
Level level() { return g_level.load(std::memory_order_relaxed); }

Level parse_level(const std::string& s) {
  for (Level l : {Level::kDebug, Level::kInfo, Level::kWarn, Level::kError, Level::kOff})
    if (s == name(l)) return l;
  REALMT_FAIL("unknown log level '{}' (use debug, info, warn, error or off)", s);
}

void write(Level l, const std::string& message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  std::lock_guard<std::mutex> lock(g_mutex);
  std::fprintf(stderr, "[%s] [%s] %s\n", stamp, name(l), message.c_str());
}

}  // namespace realmt::log
