#include "core/error.h"

#include <cstring>

#include "core/error_message.h"
#include "core/log.h"

namespace realmt {

namespace {
// Paths in messages are shown from src/ down, not as absolute build paths.
const char* short_path(const char* file) {
  const char* p = std::strstr(file, "/src/");
  return p ? p + 1 : file;
}
}  // namespace

void throw_error(const char* file, int line, const std::string& message) {
  throw Error(message, file, line);  // the place is printed at --log-level debug (error_message)
}

void throw_usage(const char* file, int line, const std::string& message) {
  throw UsageError(message, file, line);
}

void throw_internal(const char* file, int line, const char* cond, const std::string& message) {
  std::string m = format("internal error: '{}' failed at {}:{}", cond, short_path(file), line);
  if (!message.empty()) m += ": " + message;
  m += " (this is a bug in realmt; please report it)";
  throw InternalError(m, file, line);
}

std::string error_message(const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  if (!error || dynamic_cast<const InternalError*>(&e) || log::level() > log::Level::kDebug)
    return e.what();
  return format("{} ({}:{})", e.what(), short_path(error->file()), error->line());
}

}  // namespace realmt
