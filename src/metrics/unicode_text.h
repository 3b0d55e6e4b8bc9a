// Python-str semantics on UTF-8 text, as sacreBLEU relies on them.
// Text is valid UTF-8 (checked where it is read); "character" means code point.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"  // append_utf8, find_invalid_utf8 (strict, as Python's decoder)

namespace realmt::metrics {

// Python's str.isspace() set (29 code points, Python 3.11): not u_isspace, not U+200B/U+FEFF.
bool is_py_space(char32_t c);

// Byte length of the non-ASCII Python-whitespace code point starting at p, or 0.
size_t py_space_len_slow(const char* p, const char* end);

// Byte length of the Python-whitespace code point starting at p (p < end), or 0.
inline size_t py_space_len(const char* p, const char* end) {
  const auto b0 = static_cast<unsigned char>(*p);
  if (b0 < 0x80) return ((b0 >= 0x09 && b0 <= 0x0D) || (b0 >= 0x1C && b0 <= 0x20)) ? 1 : 0;
  // Only C2 85, C2 A0 and 3-byte forms led by E1, E2 or E3 are whitespace.
  if (b0 != 0xC2 && (b0 < 0xE1 || b0 > 0xE3)) return 0;
  return py_space_len_slow(p, end);
}

// Decodes the code point at s[i] (valid UTF-8 assumed) and advances i.
inline char32_t next_code_point(std::string_view s, size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  if (b0 < 0xE0) {
    char32_t c = ((b0 & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
    i += 2;
    return c;
  }
  if (b0 < 0xF0) {
    char32_t c = ((b0 & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
                 (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
    i += 3;
    return c;
  }
  char32_t c = ((b0 & 0x07u) << 18) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 12) |
               ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) |
               (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
  i += 4;
  return c;
}

// s.rstrip() / s.strip() with Python whitespace.
std::string_view py_rstrip(std::string_view s);
std::string_view py_strip(std::string_view s);

// s.split(): appends the whitespace-separated tokens of s (views into s) to out.
void py_split(std::string_view s, std::vector<std::string_view>& out);

// ' '.join(s.split()) into out (cleared first).
void collapse_whitespace(std::string_view s, std::string& out);

// s.lower(): full Unicode lower-casing with the root locale (final sigma, no tailoring).
void py_lower(std::string_view s, std::string& out);

// Appends the code points of s to out.
void to_code_points(std::string_view s, std::vector<char32_t>& out);

// One regex pass "([class])" -> " \1 " over code points: every character with pred(c) gets a
// space on each side (the TER and Moses tokenizers' padding rules).
template <typename Pred>
std::u32string pad_class(const std::u32string& s, Pred pred) {
  std::u32string out;
  out.reserve(s.size() + 8);
  for (char32_t c : s) {
    if (pred(c)) {
      out += U' ';
      out += c;
      out += U' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace realmt::metrics
