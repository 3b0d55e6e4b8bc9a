#include "core/error.h"

#include <cstring>

namespace realmt {

namespace {
// Paths in messages are shown from src/ down, not as absolute build paths.
const char* short_path(const char* file) {
  const char* p = std::strstr(file, "/src/");
  return p ? p + 1 : file;
}
}  // namespace

void throw_error(const char* file, int line, const std::string& message) {
  throw Error(format("{} ({}:{})", message, short_path(file), line), file, line);
}

void throw_usage(const char* file, int line, const std::string& message) {
  throw UsageError(message, file, line);
}

void throw_internal(const char* file, int line, const char* cond, const std::string& message) {
  std::string m = format("internal error: '{}' failed at {}:{}", cond, short_path(file), line);
  if (!message.empty()) m += ": " + message;
  m += " (this is a bug in realmt; please report it)";
  throw InternalError(std::move(m), file, line);
}

}  // namespace realmt
