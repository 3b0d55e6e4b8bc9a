#include "metrics/unicode_text.h"

#include <unicode/ucasemap.h>
#include <unicode/utypes.h>

#include <memory>

#include "core/error.h"

namespace realmt::metrics {

bool is_py_space(char32_t c) {
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
  switch (c) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000: return true;
    default: return c >= 0x2000 && c <= 0x200A;
  }
}

size_t py_space_len_slow(const char* p, const char* end) {
  const auto b0 = static_cast<unsigned char>(*p);
  // Only 2-byte (C2 85, C2 A0) and 3-byte (E1 9A 80, E2 80/81 xx, E3 80 80) forms exist.
  if (b0 == 0xC2) {
    const auto b1 = static_cast<unsigned char>(p[1]);
    return (b1 == 0x85 || b1 == 0xA0) ? 2 : 0;
  }
  if (b0 == 0xE1 || b0 == 0xE2 || b0 == 0xE3) {
    if (end - p < 3) return 0;
    size_t i = 0;
    const char32_t c = next_code_point(std::string_view(p, 3), i);
    return is_py_space(c) ? 3 : 0;
  }
  return 0;
}

// Length of the whitespace code point that ends at s[0..end), or 0.
static size_t trailing_space_len(std::string_view s, size_t end) {
  size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  const size_t len = py_space_len(s.data() + start, s.data() + end);
  return len == end - start ? len : 0;
}

std::string_view py_rstrip(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    const size_t len = trailing_space_len(s, end);
    if (len == 0) break;
    end -= len;
  }
  return s.substr(0, end);
}

std::string_view py_strip(std::string_view s) {
  s = py_rstrip(s);
  size_t start = 0;
  while (start < s.size()) {
    const size_t len = py_space_len(s.data() + start, s.data() + s.size());
    if (len == 0) break;
    start += len;
  }
  return s.substr(start);
}

void py_split(std::string_view s, std::vector<std::string_view>& out) {
  const char* p = s.data();
  const char* end = p + s.size();
  const char* tok = nullptr;
  while (p < end) {
    const size_t len = py_space_len(p, end);
    if (len > 0) {
      if (tok) out.emplace_back(tok, static_cast<size_t>(p - tok));
      tok = nullptr;
      p += len;
    } else {
      if (!tok) tok = p;
      ++p;  // continuation bytes never start a whitespace sequence
    }
  }
  if (tok) out.emplace_back(tok, static_cast<size_t>(end - tok));
}

void collapse_whitespace(std::string_view s, std::string& out) {
  out.clear();
  const char* p = s.data();
  const char* end = p + s.size();
  bool pending_space = false;
  while (p < end) {
    const size_t len = py_space_len(p, end);
    if (len > 0) {
      pending_space = !out.empty();
      p += len;
    } else {
      if (pending_space) out.push_back(' ');
      pending_space = false;
      out.push_back(*p++);
    }
  }
}

namespace {
struct CaseMapDeleter {
  void operator()(UCaseMap* m) const { ucasemap_close(m); }
};
}  // namespace

void py_lower(std::string_view s, std::string& out) {
  // Fast path: ASCII-only text lower-cases byte by byte.
  bool ascii = true;
  for (char c : s) ascii &= static_cast<unsigned char>(c) < 0x80;
  out.resize(s.size());
  if (ascii) {
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      out[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
    }
    return;
  }
  // The root locale ("") gives Python's untailored mapping, including final sigma.
  thread_local std::unique_ptr<UCaseMap, CaseMapDeleter> map;
  UErrorCode status = U_ZERO_ERROR;
  if (!map) {
    map.reset(ucasemap_open("", 0, &status));
    REALMT_CHECK(U_SUCCESS(status), "ICU ucasemap_open failed: {}", u_errorName(status));
  }
  out.resize(s.size() * 3 + 16);
  int32_t n = ucasemap_utf8ToLower(map.get(), out.data(), static_cast<int32_t>(out.size()),
                                   s.data(), static_cast<int32_t>(s.size()), &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    status = U_ZERO_ERROR;
    out.resize(static_cast<size_t>(n));
    n = ucasemap_utf8ToLower(map.get(), out.data(), n, s.data(), static_cast<int32_t>(s.size()),
                             &status);
  }
  REALMT_CHECK(U_SUCCESS(status), "ICU lower-casing failed: {}", u_errorName(status));
  out.resize(static_cast<size_t>(n));
}

void to_code_points(std::string_view s, std::vector<char32_t>& out) {
  size_t i = 0;
  while (i < s.size()) out.push_back(next_code_point(s, i));
}

}  // namespace realmt::metrics
