#include "data/match_form.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <cstring>

#include "data/normalize.h"

namespace realmt::data {

namespace {

bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// printf and Qt: '%', an optional "N$" or "(name)", flags, width, precision, length, conversion.
size_t percent_length(std::string_view s, size_t at) {
  size_t i = at + 1;
  if (i < s.size() && s[i] == '(') {  // Python %(name)s
    const size_t close = s.find(')', i);
    if (close == std::string_view::npos ||
        s.substr(i, close - i).find(' ') != std::string_view::npos)
      return 0;
    i = close + 1;
  }
  const size_t digits_from = i;
  while (i < s.size() && (ascii_digit(s[i]) || std::strchr("$-+#'.*", s[i]) != nullptr)) ++i;
  const bool qt = i > digits_from && ascii_digit(s[at + 1]);  // %1, %2: Qt's numbered arguments
  while (i < s.size() && std::strchr("hlLqjzt", s[i]) != nullptr) ++i;
  if (i < s.size() && ascii_alpha(s[i])) return i + 1 - at;
  if (i < s.size() && s[i] == '@') return i + 1 - at;  // Objective-C %@
  return qt ? i - at : 0;
}

size_t brace_length(std::string_view s, size_t at) {
  size_t j = at + 1;
  while (j < s.size() && s[j] != '}' && s[j] != ' ' && s[j] != '{') ++j;
  return j < s.size() && s[j] == '}' && j > at + 1 ? j + 1 - at : 0;
}

}  // namespace

size_t placeholder_length(std::string_view text, size_t at) {
  if (at >= text.size()) return 0;
  if (text[at] == '%') return percent_length(text, at);
  if (text[at] == '{') return brace_length(text, at);
  return 0;
}

std::string masked_form(std::string_view text) {
  // Letters and marks are kept, placeholders and digits become '0', the rest one space.
  std::string out;
  bool pending_space = false;
  auto emit_mask = [&] {
    // Runs of numbers and placeholders separated only by non-letters make one "0".
    if (out.empty() || out.back() != '0') {
      if (pending_space && !out.empty()) out += ' ';
      out += '0';
    }
    pending_space = false;
  };
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const int32_t n = int32_t(text.size());
  int32_t i = 0;
  while (i < n) {
    if (const size_t len = placeholder_length(text, size_t(i)); len > 0) {
      emit_mask();
      i += int32_t(len);
      continue;
    }
    const int32_t start = i;
    UChar32 c;
    U8_NEXT(s, i, n, c);
    if (c >= 0 && u_isdigit(c)) {
      emit_mask();
    } else if (c >= 0 && (u_isalpha(c) || (U_GET_GC_MASK(c) & U_GC_M_MASK) != 0)) {
      if (pending_space && !out.empty()) out += ' ';
      pending_space = false;
      out.append(text.substr(size_t(start), size_t(i - start)));
    } else {
      pending_space = true;
    }
  }
  return casefold(out);
}

std::string match_form(std::string_view text, SourceMatch match) {
  switch (match) {
    case SourceMatch::kExact: return std::string(text);
    case SourceMatch::kCasefold: return casefold(text);
    case SourceMatch::kMasked: return masked_form(text);
  }
  return std::string(text);
}

}  // namespace realmt::data
