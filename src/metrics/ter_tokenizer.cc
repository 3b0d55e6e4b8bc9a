// The Tercom tokenizer (sacreBLEU tokenizers/tokenizer_ter.py), as hand-written scanners.
#include <string>

#include "metrics/ter.h"
#include "metrics/tokenizer.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {

namespace {

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    const size_t hit = s.find(from, pos);
    if (hit == std::string::npos) break;
    out.append(s, pos, hit - pos);
    out.append(to);
    pos = hit + from.size();
  }
  if (pos == 0) return;
  out.append(s, pos, std::string::npos);
  s.swap(out);
}

constexpr bool is_r1(char32_t c) {
  return (c >= 0x20 && c <= 0x26) || (c >= 0x28 && c <= 0x2B) || c == 0x2F ||
         (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}
constexpr bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }
constexpr bool is_dot_comma(char32_t c) { return c == '.' || c == ','; }

bool is_asian_punct(char32_t c) {
  return c == 0x3001 || c == 0x3002 || (c >= 0x3008 && c <= 0x3011) ||
         (c >= 0x3014 && c <= 0x301F) || (c >= 0xFF61 && c <= 0xFF65) || c == 0x30FB;
}
bool is_full_width_punct(char32_t c) {
  switch (c) {
    case 0xFF0E:
    case 0xFF0C:
    case 0xFF1F:
    case 0xFF1A:
    case 0xFF1B:
    case 0xFF01:
    case 0xFF02:
    case 0xFF08:
    case 0xFF09: return true;
    default: return false;
  }
}

std::u32string normalize_general_and_western(std::string& s8) {
  replace_all(s8, "\n-", "");
  for (char& c : s8) c = c == '\n' ? ' ' : c;
  replace_all(s8, "&quot;", "\"");
  replace_all(s8, "&amp;", "&");
  replace_all(s8, "&lt;", "<");
  replace_all(s8, "&gt;", ">");
  std::u32string s = U" ";
  size_t i = 0;
  while (i < s8.size()) s += next_code_point(s8, i);
  s += U' ';
  s = pad_class(s, is_r1);
  // 's  ->  's   (the "'s$" rule never fires after the padding)
  std::u32string t;
  for (size_t k = 0; k < s.size();) {
    if (k + 2 < s.size() && s[k] == U'\'' && s[k + 1] == U's' && s[k + 2] == U' ') {
      t += U" 's ";
      k += 3;
    } else {
      t += s[k++];
    }
  }
  s.clear();
  for (size_t k = 0; k < t.size();) {  // ([^0-9])([\.,]) -> "\1 \2 "
    if (k + 1 < t.size() && !is_digit(t[k]) && is_dot_comma(t[k + 1])) {
      s += {t[k], U' ', t[k + 1], U' '};
      k += 2;
    } else {
      s += t[k++];
    }
  }
  t.clear();
  for (size_t k = 0; k < s.size();) {  // ([\.,])([^0-9]) -> " \1 \2"
    if (k + 1 < s.size() && is_dot_comma(s[k]) && !is_digit(s[k + 1])) {
      t += {U' ', s[k], U' ', s[k + 1]};
      k += 2;
    } else {
      t += s[k++];
    }
  }
  s.clear();
  for (size_t k = 0; k < t.size();) {  // ([0-9])(-) -> "\1 \2 "
    if (k + 1 < t.size() && is_digit(t[k]) && t[k + 1] == U'-') {
      s += {t[k], U' ', U'-', U' '};
      k += 2;
    } else {
      s += t[k++];
    }
  }
  return s;
}

std::u32string normalize_asian(const std::u32string& s0) {
  std::u32string s = pad_class(
      s0, [](char32_t c) { return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF); });
  s = pad_class(
      s, [](char32_t c) { return (c >= 0x31C0 && c <= 0x31EF) || (c >= 0x2E80 && c <= 0x2EFF); });
  s = pad_class(s, [](char32_t c) {
    return (c >= 0x3300 && c <= 0x33FF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0xFE30 && c <= 0xFE4F);
  });
  s = pad_class(s, [](char32_t c) { return c >= 0x3200 && c <= 0x3F22; });
  // The three kana patterns are anchored with '^' and never match after the leading pad space.
  s = pad_class(s, is_asian_punct);
  return pad_class(s, is_full_width_punct);
}

}  // namespace

std::string ter_tokenize(std::string_view line, const TerOptions& o) {
  if (line.empty()) return "";
  std::string s8;
  if (o.case_sensitive) {
    s8.assign(line);
  } else {
    py_lower(line, s8);
  }
  std::u32string s;
  bool have_u32 = false;
  if (o.normalized) {
    s = normalize_general_and_western(s8);
    if (o.asian_support) s = normalize_asian(s);
    have_u32 = true;
  }
  if (o.no_punct) {
    if (!have_u32) {
      size_t i = 0;
      while (i < s8.size()) s += next_code_point(s8, i);
      have_u32 = true;
    }
    std::u32string t;
    for (char32_t c : s) {
      const bool punct = c == '.' || c == ',' || c == '?' || c == ':' || c == ';' || c == '!' ||
                         c == '"' || c == '(' || c == ')';
      if (punct) continue;
      if (o.asian_support && (is_asian_punct(c) || is_full_width_punct(c))) continue;
      t += c;
    }
    s.swap(t);
  }
  if (have_u32) {
    s8.clear();
    for (char32_t c : s) append_utf8(s8, c);
  }
  std::string out;
  collapse_whitespace(s8, out);
  return out;
}

}  // namespace realmt::metrics
