#include "metrics/tokenizer.h"

#include <unicode/uchar.h>

#include <cstring>

#include "core/error.h"
#include "metrics/spm_tokenizer.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {

TokenizerKind parse_tokenizer(std::string_view name) {
  if (name == "13a") return TokenizerKind::k13a;
  if (name == "intl") return TokenizerKind::kIntl;
  if (name == "zh") return TokenizerKind::kZh;
  if (name == "char") return TokenizerKind::kChar;
  if (name == "none") return TokenizerKind::kNone;
  if (name == "spm") return TokenizerKind::kSpm;
  if (name == "flores101") return TokenizerKind::kFlores101;
  if (name == "flores200") return TokenizerKind::kFlores200;
  REALMT_FAIL(
      "unknown BLEU tokenizer '{}' (supported: 13a, intl, zh, char, none, spm, flores101, "
      "flores200; "
      "not ja-mecab, ko-mecab, spBLEU-1K)",
      name);
}

const char* tokenizer_name(TokenizerKind kind) {
  switch (kind) {
    case TokenizerKind::k13a: return "13a";
    case TokenizerKind::kIntl: return "intl";
    case TokenizerKind::kZh: return "zh";
    case TokenizerKind::kChar: return "char";
    case TokenizerKind::kNone: return "none";
    case TokenizerKind::kSpm: return "flores101";
    case TokenizerKind::kFlores101: return "flores101";
    case TokenizerKind::kFlores200: return "flores200";
  }
  return "?";
}

namespace {

// R1's class: U+0020-0026, 0028-002B, 002F, 003A-0040, 005B-0060, 007B-007E.
constexpr bool is_r1(unsigned char c) {
  return (c >= 0x20 && c <= 0x26) || (c >= 0x28 && c <= 0x2B) || c == 0x2F ||
         (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

struct R1Table {
  bool v[256];
  constexpr R1Table() : v() {
    for (int c = 0; c < 256; ++c) v[c] = is_r1(static_cast<unsigned char>(c));
  }
};
constexpr R1Table kR1;
constexpr bool is_dot_comma(char c) { return c == '.' || c == ','; }

std::string& out_tmp() {
  thread_local std::string t;
  return t;
}

// In-place str.replace(from, to) for to shorter than from.
void replace_all(std::string& s, std::string_view from, std::string_view to) {
  size_t pos = s.find(from);
  if (pos == std::string::npos) return;
  size_t w = pos;
  size_t r = pos;
  while (r < s.size()) {
    if (s.compare(r, from.size(), from) == 0) {
      s.replace(w, to.size(), to);
      w += to.size();
      r += from.size();
    } else {
      s[w++] = s[r++];
    }
  }
  s.resize(w);
}

}  // namespace

// The patterns are ASCII on one side and "any non-digit code point" on the other, so a byte
// scanner is equivalent to Python's code-point regex passes: a multi-byte code point can only
// take part in a match through its last byte (R2, as context) or its first byte (R3), and its
// other bytes are copied unchanged, exactly as the regex would leave them.
void apply_13a_rules(std::string_view in, std::string& out, std::string& scratch, bool collapse) {
  // Each pass writes through a raw pointer into a buffer sized for its worst case.
  std::string& a = scratch;
  a.resize(in.size() * 3 + 8);
  char* w = a.data();
  for (char c : in) {  // R1: ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
    if (kR1.v[static_cast<unsigned char>(c)]) {
      w[0] = ' ';
      w[1] = c;
      w[2] = ' ';
      w += 3;
    } else {
      *w++ = c;
    }
  }
  size_t n = static_cast<size_t>(w - a.data());
  std::string& b = out;
  const bool has_dot_comma =
      std::string_view(a.data(), n).find_first_of(".,") != std::string_view::npos;
  if (has_dot_comma) {
    b.resize(n * 2 + 8);
    w = b.data();
    const char* s = a.data();
    for (size_t i = 0; i < n;) {  // R2: ([^0-9])([\.,]) -> "\1 \2 "
      if (i + 1 < n && !is_digit(s[i]) && is_dot_comma(s[i + 1])) {
        w[0] = s[i];
        w[1] = ' ';
        w[2] = s[i + 1];
        w[3] = ' ';
        w += 4;
        i += 2;
      } else {
        *w++ = s[i++];
      }
    }
    n = static_cast<size_t>(w - b.data());
    a.resize(n * 2 + 8);
    w = a.data();
    s = b.data();
    for (size_t i = 0; i < n;) {  // R3: ([\.,])([^0-9]) -> " \1 \2"
      if (i + 1 < n && is_dot_comma(s[i]) && !is_digit(s[i + 1])) {
        w[0] = ' ';
        w[1] = s[i];
        w[2] = ' ';
        w[3] = s[i + 1];
        w += 4;
        i += 2;
      } else {
        *w++ = s[i++];
      }
    }
    n = static_cast<size_t>(w - a.data());
  }
  if (std::string_view(a.data(), n).find('-') != std::string_view::npos) {
    b.resize(n * 2 + 8);
    w = b.data();
    const char* s = a.data();
    for (size_t i = 0; i < n;) {  // R4: ([0-9])(-) -> "\1 \2 "
      if (i + 1 < n && is_digit(s[i]) && s[i + 1] == '-') {
        w[0] = s[i];
        w[1] = ' ';
        w[2] = '-';
        w[3] = ' ';
        w += 4;
        i += 2;
      } else {
        *w++ = s[i++];
      }
    }
    n = static_cast<size_t>(w - b.data());
    if (!collapse) {
      b.resize(n);
      return;
    }
    collapse_whitespace(std::string_view(b.data(), n), out_tmp());
  } else {
    if (!collapse) {
      b.assign(a.data(), n);
      return;
    }
    collapse_whitespace(std::string_view(a.data(), n), out_tmp());
  }
  out.swap(out_tmp());
}

bool is_zh_split_char(char32_t c) {
  return (c >= 0x2001 && c <= 0x2A6D) || (c >= 0x2E80 && c <= 0x2FDF) ||
         (c >= 0x2FF0 && c <= 0x303F) || (c >= 0x3100 && c <= 0x312F) ||
         (c >= 0x31A0 && c <= 0x31EF) || (c >= 0x3200 && c <= 0x4DB5) ||
         (c >= 0x4E00 && c <= 0x9FBB) || (c >= 0xF900 && c <= 0xFA2D) ||
         (c >= 0xFA30 && c <= 0xFA6A) || (c >= 0xFA70 && c <= 0xFAD9) ||
         (c >= 0xFE10 && c <= 0xFE1F) || (c >= 0xFE30 && c <= 0xFE4F) ||
         (c >= 0xFF00 && c <= 0xFFEF);
}

namespace {

void tokenize_13a(std::string_view line, std::string& out, std::string& scratch, bool collapse) {
  std::string& s = out;
  s.assign(" ");
  s.append(line);
  if (s.find('<') != std::string::npos) replace_all(s, "<skipped>", "");
  if (s.find('\n') != std::string::npos) {
    replace_all(s, "-\n", "");
    for (char& c : s) c = c == '\n' ? ' ' : c;
  }
  if (s.find('&') != std::string::npos) {
    replace_all(s, "&quot;", "\"");
    replace_all(s, "&amp;", "&");
    replace_all(s, "&lt;", "<");
    replace_all(s, "&gt;", ">");
  }
  s.push_back(' ');
  thread_local std::string padded;
  padded.swap(s);
  apply_13a_rules(padded, out, scratch, collapse);
}

bool gc_in(char32_t c, uint32_t mask) {
  return (U_GET_GC_MASK(static_cast<UChar32>(c)) & mask) != 0;
}

// intl: I1 (\P{N})(\p{P}) -> "\1 \2 ", I2 (\p{P})(\P{N}) -> " \1 \2", I3 (\p{S}) -> " \1 ".
void tokenize_intl(std::string_view line, std::string& out, std::string& scratch) {
  thread_local std::vector<char32_t> a, b;
  a.clear();
  to_code_points(line, a);
  b.clear();
  for (size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && !gc_in(a[i], U_GC_N_MASK) && gc_in(a[i + 1], U_GC_P_MASK)) {
      b.insert(b.end(), {a[i], U' ', a[i + 1], U' '});
      i += 2;
    } else {
      b.push_back(a[i++]);
    }
  }
  a.clear();
  for (size_t i = 0; i < b.size();) {
    if (i + 1 < b.size() && gc_in(b[i], U_GC_P_MASK) && !gc_in(b[i + 1], U_GC_N_MASK)) {
      a.insert(a.end(), {U' ', b[i], U' ', b[i + 1]});
      i += 2;
    } else {
      a.push_back(b[i++]);
    }
  }
  scratch.clear();
  for (char32_t c : a) {
    if (gc_in(c, U_GC_S_MASK)) {
      scratch.push_back(' ');
      append_utf8(scratch, c);
      scratch.push_back(' ');
    } else {
      append_utf8(scratch, c);
    }
  }
  collapse_whitespace(scratch, out);
}

void tokenize_zh(std::string_view line, std::string& out, std::string& scratch) {
  line = py_strip(line);
  std::string spaced;
  spaced.reserve(line.size() * 2);
  for (size_t i = 0; i < line.size();) {
    const size_t start = i;
    const char32_t c = next_code_point(line, i);
    if (is_zh_split_char(c)) spaced.push_back(' ');
    spaced.append(line.substr(start, i - start));
    if (is_zh_split_char(c)) spaced.push_back(' ');
  }
  apply_13a_rules(spaced, out, scratch);
}

void tokenize_char(std::string_view line, std::string& out) {
  out.clear();
  const char* p = line.data();
  const char* end = p + line.size();
  while (p < end) {
    const size_t sp = py_space_len(p, end);
    if (sp > 0) {
      p += sp;
      continue;
    }
    size_t i = 0;
    std::string_view rest(p, static_cast<size_t>(end - p));
    next_code_point(rest, i);
    if (!out.empty()) out.push_back(' ');
    out.append(p, i);
    p += i;
  }
}

}  // namespace

namespace {

// The fused 13a pass: the four regex passes of apply_13a_rules and the final split() as one
// left-to-right scan over the padded line. Each regex pass is a transducer over the previous
// pass's output, and only R3 ever has to hold a character back:
//   R1 ([R1 class]) -> " \1 ": insert spaces around the character; no state.
//   R2 ([^0-9])([.,]) -> "\1 \2 ": on '.'/',' whose predecessor (in R1's output) is a
//      non-digit not consumed by the previous R2 match: emit " c "; state r2_can_.
//   R3 ([.,])([^0-9]) -> " \1 \2": a '.'/',' (not consumed) is held until the next character
//      shows whether it matches; state r3_held_.
//   R4 ([0-9])(-) -> "\1 \2 ": on '-' whose predecessor is an unconsumed digit: emit " - ".
//   split(): ASCII whitespace ends a token; a token holding a byte that can start a multi-byte
//      Python space (C2, E1-E3) is split again with py_split, so Unicode spaces split as well.
// Non-ASCII bytes never match a class above except as "non-digit", exactly as in the byte-wise
// apply_13a_rules (see there). "Plain" bytes (not special to any pass) take a fast path: with no
// held character they only extend the current token and leave r2_can_ = true, r4_can_ = false.
enum : uint8_t { kPlain = 0, kPlainLead = 1, kSpace = 2, kSpecial = 3 };

constexpr bool is_ascii_py_space(unsigned char c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
}

struct Fused13aTable {
  uint8_t v[256];
  constexpr Fused13aTable() : v() {
    for (int i = 0; i < 256; ++i) {
      const auto c = static_cast<unsigned char>(i);
      if (is_ascii_py_space(c)) {
        v[i] = kSpace;
      } else if (is_r1(c) || (c >= '0' && c <= '9') || c == '.' || c == ',' || c == '-') {
        v[i] = kSpecial;
      } else if (c == 0xC2 || c == 0xE1 || c == 0xE2 || c == 0xE3) {
        v[i] = kPlainLead;
      } else {
        v[i] = kPlain;
      }
    }
  }
};
constexpr Fused13aTable kFused;

class Fused13a {
 public:
  Fused13a(char* base, char* w, std::vector<uint32_t>& ends) : base_(base), w_(w), ends_(ends) {}

  // Runs over ' ' + line + ' '. With stop_on_pre, returns false as soon as a byte that the
  // pre-rules (<skipped>, -\n, \n, &quot; ...) could act on appears ('<', '&', '\n').
  bool run(std::string_view line, bool stop_on_pre) {
    space();
    const char* p = line.data();
    const char* end = p + line.size();
    while (p < end) {
      const auto c = static_cast<unsigned char>(*p);
      uint8_t k = kFused.v[c];
      if (r3_held_ == 0) {
        if (k <= kPlainLead) {
          if (!in_tok_) begin_token();
          do {
            *w_++ = *p++;
            lead_ |= k;
          } while (p < end && (k = kFused.v[static_cast<unsigned char>(*p)]) <= kPlainLead);
          r2_can_ = true;
          r4_can_ = false;
          continue;
        }
        if (k == kSpace) {
          if (stop_on_pre && c == '\n') return false;
          space();
          ++p;
          continue;
        }
      }
      if (stop_on_pre && (c == '<' || c == '&' || c == '\n')) return false;
      r1(static_cast<char>(c));
      ++p;
    }
    r1(' ');
    if (r3_held_ != 0) {
      const char h = r3_held_;
      r3_held_ = 0;
      r4(h);
    }
    end_token();
    return true;
  }
  char* end() const { return w_; }

 private:
  // Whitespace with nothing held: what R1-R4 and the split do to it.
  void space() {
    end_token();
    r2_can_ = true;
    r4_can_ = false;
  }
  void r1(char c) {
    if (kR1.v[static_cast<unsigned char>(c)]) {
      r2(' ');
      r2(c);
      r2(' ');
    } else {
      r2(c);
    }
  }
  void r2(char c) {
    if (is_dot_comma(c) && r2_can_) {
      r3(' ');
      r3(c);
      r3(' ');
      r2_can_ = false;
    } else {
      r3(c);
      r2_can_ = !is_digit(c);
    }
  }
  void r3(char c) {
    if (r3_held_ != 0) {
      const char h = r3_held_;
      r3_held_ = 0;
      if (!is_digit(c)) {  // match: " h c"; c is consumed and cannot start a match
        r4(' ');
        r4(h);
        r4(' ');
        r4(c);
      } else {
        r4(h);
        r4(c);
      }
      return;
    }
    if (is_dot_comma(c)) {
      r3_held_ = c;
    } else {
      r4(c);
    }
  }
  void r4(char c) {
    if (c == '-' && r4_can_) {
      sink(' ');
      sink('-');
      sink(' ');
      r4_can_ = false;
    } else {
      sink(c);
      r4_can_ = is_digit(c);
    }
  }
  void sink(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (is_ascii_py_space(u)) {
      end_token();
      return;
    }
    if (!in_tok_) begin_token();
    *w_++ = c;
    lead_ |= kFused.v[u] == kPlainLead ? 1 : 0;
  }
  void begin_token() {
    in_tok_ = true;
    tok_ = w_;
  }
  void end_token() {
    if (!in_tok_) return;
    in_tok_ = false;
    if (lead_ == 0) {
      ends_.push_back(static_cast<uint32_t>(w_ - base_));
      return;
    }
    lead_ = 0;
    thread_local std::vector<std::string_view> pieces;
    pieces.clear();
    py_split(std::string_view(tok_, static_cast<size_t>(w_ - tok_)), pieces);
    char* dst = tok_;  // compact the pieces in place (each lies at or after dst)
    for (std::string_view piece : pieces) {
      std::memmove(dst, piece.data(), piece.size());
      dst += piece.size();
      ends_.push_back(static_cast<uint32_t>(dst - base_));
    }
    w_ = dst;
  }

  char* base_;
  char* w_;
  char* tok_ = nullptr;
  std::vector<uint32_t>& ends_;
  bool in_tok_ = false;
  uint8_t lead_ = 0;
  bool r2_can_ = false;
  bool r4_can_ = false;
  char r3_held_ = 0;
};

// tokenize_13a's pre-rules on line (without the padding spaces, which no pattern involves).
void pre_13a(std::string_view line, std::string& s) {
  s.assign(line);
  if (s.find('<') != std::string::npos) replace_all(s, "<skipped>", "");
  if (s.find('\n') != std::string::npos) {
    replace_all(s, "-\n", "");
    for (char& c : s) c = c == '\n' ? ' ' : c;
  }
  if (s.find('&') != std::string::npos) {
    replace_all(s, "&quot;", "\"");
    replace_all(s, "&amp;", "&");
    replace_all(s, "&lt;", "<");
    replace_all(s, "&gt;", ">");
  }
}

void tokens_13a(std::string_view line, std::string& bytes, std::vector<uint32_t>& ends,
                std::string& scratch) {
  const size_t old_size = bytes.size();
  const size_t old_ends = ends.size();
  // The tokens hold only non-space input bytes; the pre-rules never lengthen the line.
  bytes.resize(old_size + line.size() + 8);
  {
    Fused13a f(bytes.data(), bytes.data() + old_size, ends);
    if (f.run(line, /*stop_on_pre=*/true)) {
      bytes.resize(static_cast<size_t>(f.end() - bytes.data()));
      return;
    }
  }
  ends.resize(old_ends);
  pre_13a(line, scratch);
  Fused13a f(bytes.data(), bytes.data() + old_size, ends);
  f.run(scratch, /*stop_on_pre=*/false);
  bytes.resize(static_cast<size_t>(f.end() - bytes.data()));
}

}  // namespace

void tokenize_to_tokens(TokenizerKind kind, std::string_view line, std::string& bytes,
                        std::vector<uint32_t>& ends, std::string& scratch) {
  if (kind == TokenizerKind::k13a) {
    tokens_13a(line, bytes, ends, scratch);
    return;
  }
  thread_local std::string out;
  thread_local std::vector<std::string_view> toks;
  tokenize(kind, line, out, scratch, /*collapse=*/false);
  toks.clear();
  py_split(out, toks);
  for (std::string_view t : toks) {
    bytes.append(t);
    ends.push_back(static_cast<uint32_t>(bytes.size()));
  }
}

void tokenize(TokenizerKind kind, std::string_view line, std::string& out, std::string& scratch,
              bool collapse) {
  switch (kind) {
    case TokenizerKind::k13a: tokenize_13a(line, out, scratch, collapse); return;
    case TokenizerKind::kIntl: tokenize_intl(line, out, scratch); return;
    case TokenizerKind::kZh: tokenize_zh(line, out, scratch); return;
    case TokenizerKind::kChar: tokenize_char(line, out); return;
    case TokenizerKind::kNone: out.assign(line); return;
    case TokenizerKind::kSpm:
    case TokenizerKind::kFlores101:
    case TokenizerKind::kFlores200: spm_tokenizer(kind).tokenize(line, out); return;
  }
}

}  // namespace realmt::metrics
