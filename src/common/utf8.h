// UTF-8 validation, encoding and counting (RFC 3629: no overlongs, no surrogates, <= U+10FFFF),
// for the data tools and the metrics alike.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace realmt {

// Byte offset of the first byte that starts an invalid sequence, or npos when `text` is valid.
size_t find_invalid_utf8(std::string_view text);
inline bool is_valid_utf8(std::string_view text) {
  return find_invalid_utf8(text) == std::string_view::npos;
}

// Appends the UTF-8 encoding of code point c (c <= U+10FFFF, not a surrogate).
void append_utf8(std::string& out, char32_t c);

// Number of code points in valid UTF-8 (continuation bytes are not counted).
size_t count_code_points(std::string_view text);

// Number of white-space separated words (ASCII white space: space, tab, CR, LF, FF, VT).
size_t count_words(std::string_view text);

}  // namespace realmt
