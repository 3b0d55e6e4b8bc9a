// Helpers for the libFuzzer targets: inputs as files (for readers that take a path) and as
// lines. A target catches realmt::Error (bad input, reported clearly: the expected outcome) and
// nothing else: any other exception, crash, sanitizer report or failed check is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace realmt::fuzz {

// Writes the input to this process's scratch file for `tag` (overwritten by every input with
// that tag) and returns its path. TMPDIR is honoured.
inline std::string as_file(const uint8_t* data, size_t size, const char* tag) {
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir && *dir ? dir : "/tmp") + "/realmt-fuzz-" + tag + "-" +
                           std::to_string(::getpid());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The input split at '\n' (a final line without one included).
inline std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A property that must hold for every input: a violation is a finding.
#define REALMT_FUZZ_CHECK(cond)                                                              \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "fuzz property failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

}  // namespace realmt::fuzz
