// Logging to stderr with a timestamp and level; thread-safe; level set once by the main.
#pragma once

#include <string>

#include "core/error.h"

namespace realmt::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

void set_level(Level level);
Level level();
// Parses "debug", "info", "warn", "error", "off".
Level parse_level(const std::string& name);
void write(Level level, const std::string& message);
// Also appends every line (write's and line's) to `path` from now on ("" stops it); throws a
// realmt::Error naming the file when it cannot be opened. Marian's --log.
void set_file(const std::string& path);
bool has_file();
// "[time] text", Marian's plain log line: on stderr unless `quiet`, and in the log file if any.
void line(const std::string& text, bool quiet = false);

template <typename... Args>
void debug(std::string_view fmt, const Args&... args) {
  if (level() <= Level::kDebug) write(Level::kDebug, format(fmt, args...));
}
template <typename... Args>
void info(std::string_view fmt, const Args&... args) {
  if (level() <= Level::kInfo) write(Level::kInfo, format(fmt, args...));
}
template <typename... Args>
void warn(std::string_view fmt, const Args&... args) {
  if (level() <= Level::kWarn) write(Level::kWarn, format(fmt, args...));
}
template <typename... Args>
void error(std::string_view fmt, const Args&... args) {
  if (level() <= Level::kError) write(Level::kError, format(fmt, args...));
}

}  // namespace realmt::log
