// The one logging facility of every realmt program: time-stamped lines on stderr and, with --log
// FILE (every program's option, common/options_compat.cc), appended to a file too; --log-level
// filters both. Thread-safe; the level and the file are set once by the main (OptionSet::parse).
//
// One line style, Marian's: "[2026-01-31 12:00:00] text" for information and progress (training
// and validation lines, "Best translation", summaries), with "[debug] ", "[warn] " or "[error] "
// before the text for those levels. A program's final error ("realmt-x: error: ...", written by
// common/program.cc) goes to stderr as it is and to the log file as an error line.
#pragma once

#include <string>

#include "core/error.h"

namespace realmt::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

void set_level(Level level);
Level level();
// Parses "debug", "info", "warn", "error", "off" and Marian's other names: "trace" (debug), "err"
// and "critical" (error).
Level parse_level(const std::string& name);
// A line of `level` (nothing when below the level set).
void write(Level level, const std::string& message);
// Also appends every line to `path` from now on ("" stops it); throws a realmt::Error naming the
// file when it cannot be opened. Marian's --log.
void set_file(const std::string& path);
bool has_file();
// An information line; `quiet` keeps it off stderr (the log file still gets it): the programs'
// --quiet.
void line(const std::string& text, bool quiet = false);
// A line for the log file only (nothing without one), e.g. the final error that the main prints
// in its own format on stderr.
void file_only(Level level, const std::string& message);
// "[time] text" (each line of a multi-line text stamped): the line as the log writes it (for files
// a caller keeps itself, as --valid-log).
std::string stamped(const std::string& text);

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
