// Errors: REALMT_CHECK for anything a user can cause, REALMT_ASSERT for internal invariants.
// Both throw (library code never exits or aborts); mains turn the exception into a message.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace realmt {

// The error a user can cause: a bad shape, file, option or input. Carries file:line.
class Error : public std::runtime_error {
 public:
  // std::runtime_error copies its message (it takes a const reference): nothing to move.
  Error(const std::string& message, const char* file, int line)
      : std::runtime_error(message), file_(file), line_(line) {}
  const char* file() const { return file_; }
  int line() const { return line_; }

 private:
  const char* file_;
  int line_;
};

// A mistake on the command line or in a config file: an unknown option, a value of the wrong
// type, a missing or contradictory setting. Mains exit 2 for it (as argparse does) and 1 for
// other errors; the message names the option and carries no source location.
class UsageError : public Error {
 public:
  using Error::Error;
};

// A broken internal invariant (a bug in realmt, not in the input).
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {

inline void format_into(std::ostringstream& os, std::string_view fmt) { os << fmt; }

template <typename T, typename... Rest>
void format_into(std::ostringstream& os, std::string_view fmt, const T& value,
                 const Rest&... rest) {
  const size_t pos = fmt.find("{}");
  if (pos == std::string_view::npos) {
    os << fmt;
    return;
  }
  os << fmt.substr(0, pos) << value;
  format_into(os, fmt.substr(pos + 2), rest...);
}

}  // namespace detail

// Replaces each "{}" in fmt by the next argument (streamed with operator<<).
template <typename... Args>
std::string format(std::string_view fmt, const Args&... args) {
  std::ostringstream os;
  detail::format_into(os, fmt, args...);
  return os.str();
}

[[noreturn]] void throw_error(const char* file, int line, const std::string& message);
[[noreturn]] void throw_usage(const char* file, int line, const std::string& message);
[[noreturn]] void throw_internal(const char* file, int line, const char* cond,
                                 const std::string& message);

}  // namespace realmt

// REALMT_CHECK(cond, "message with {} values", x): throws realmt::Error naming file:line.
#define REALMT_CHECK(cond, ...)                                                 \
  do {                                                                          \
    if (!(cond)) [[unlikely]]                                                   \
      ::realmt::throw_error(__FILE__, __LINE__, ::realmt::format(__VA_ARGS__)); \
  } while (0)

// REALMT_FAIL("message {}", x): unconditional user-facing error.
#define REALMT_FAIL(...) ::realmt::throw_error(__FILE__, __LINE__, ::realmt::format(__VA_ARGS__))

// REALMT_USAGE_CHECK(cond, "option 'x' ...", x) / REALMT_USAGE_FAIL(...): a realmt::UsageError.
#define REALMT_USAGE_CHECK(cond, ...)                                           \
  do {                                                                          \
    if (!(cond)) [[unlikely]]                                                   \
      ::realmt::throw_usage(__FILE__, __LINE__, ::realmt::format(__VA_ARGS__)); \
  } while (0)
#define REALMT_USAGE_FAIL(...) \
  ::realmt::throw_usage(__FILE__, __LINE__, ::realmt::format(__VA_ARGS__))

// REALMT_ASSERT(cond) / REALMT_ASSERT(cond, "why {}", x): internal invariant, on in release builds.
#define REALMT_ASSERT(cond, ...)                                                             \
  do {                                                                                       \
    if (!(cond)) [[unlikely]]                                                                \
      ::realmt::throw_internal(__FILE__, __LINE__, #cond, ::realmt::format("" __VA_ARGS__)); \
  } while (0)
