// Each step below is one substitution of tokenizer.perl, with Perl's matching order: a global
// substitution scans left to right and resumes after the characters its match consumed
// (look-aheads consume nothing), which decides cases such as "a,,b" or "a'b'c".
#include "metrics/moses_tokenizer.h"

#include <unicode/uchar.h>

#include <fstream>

#include "common/utf8.h"
#include "core/error.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {

namespace {

using U32 = std::u32string;

bool is_space(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE) != 0;
}
bool is_alpha(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_ALPHABETIC) != 0;
}
bool is_alnum(char32_t c) {
  return is_alpha(c) || u_charType(static_cast<UChar32>(c)) == U_DECIMAL_DIGIT_NUMBER;
}
bool is_number(char32_t c) { return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_N_MASK) != 0; }
bool is_lower(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_LOWERCASE) != 0;
}
bool is_ll(char32_t c) { return u_charType(static_cast<UChar32>(c)) == U_LOWERCASE_LETTER; }

U32 decode(std::string_view s) {
  U32 out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(next_code_point(s, i));
  return out;
}

std::string encode(const U32& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  for (char32_t c : s) append_utf8(out, c);
  return out;
}

// s/ +/ /g; s/^ //; s/ $//
U32 squeeze_trim(const U32& s) {
  U32 out;
  for (char32_t c : s)
    if (c != U' ' || (!out.empty() && out.back() != U' ')) out.push_back(c);
  if (!out.empty() && out.back() == U' ') out.pop_back();
  return out;
}

// s/(c)(?=$|[^\p{Ll}])/ $1 /g
U32 pad_unless_lower_follows(const U32& s, char32_t c) {
  U32 out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == c && (i + 1 == s.size() || !is_ll(s[i + 1]))) {
      out += U' ';
      out += c;
      out += U' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

// s/([L])[']([R])/$1<mid>$2/g: both neighbours are consumed by the match.
template <typename L, typename R>
U32 apostrophe_rule(const U32& s, L left, R right, const U32& mid) {
  U32 out;
  size_t i = 0;
  while (i < s.size()) {
    if (i + 2 < s.size() && s[i + 1] == U'\'' && left(s[i]) && right(s[i + 2])) {
      out += s[i];
      out += mid;
      out += s[i + 2];
      i += 3;
    } else {
      out += s[i++];
    }
  }
  return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = s.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
    out.append(s, pos, hit - pos);
    out.append(to);
  }
  out.append(s, pos, std::string::npos);
  s.swap(out);
}

// The multi-dot placeholders: s/\.([\.]+)/ DOTMULTI$1/g, then while /DOTMULTI\./ {
// s/DOTMULTI\.([^\.])/DOTDOTMULTI $1/g; s/DOTMULTI\./DOTDOTMULTI/g }. ASCII patterns whose
// [^\.] may take the first byte of a multi-byte character: it is put back unchanged.
void protect_dots(std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '.' && i + 1 < s.size() && s[i + 1] == '.') {
      out += " DOTMULTI";
      size_t j = i + 1;
      while (j < s.size() && s[j] == '.') out += s[j++];
      i = j;
    } else {
      out += s[i++];
    }
  }
  s.swap(out);
  constexpr std::string_view kMark = "DOTMULTI.";
  while (s.find(kMark) != std::string::npos) {
    out.clear();
    size_t pos = 0;
    for (size_t hit; (hit = s.find(kMark, pos)) != std::string::npos;) {
      const size_t next = hit + kMark.size();
      if (next < s.size() && s[next] != '.') {
        out.append(s, pos, hit - pos);
        out += "DOTDOTMULTI ";
        out += s[next];
        pos = next + 1;
      } else {
        out.append(s, pos, next - pos);
        pos = next;
      }
    }
    out.append(s, pos, std::string::npos);
    replace_all(out, kMark, "DOTDOTMULTI");
    s.swap(out);
  }
}

void restore_dots(std::string& s) {
  while (s.find("DOTDOTMULTI") != std::string::npos) replace_all(s, "DOTDOTMULTI", "DOTMULTI.");
  replace_all(s, "DOTMULTI", ".");
}

}  // namespace

NonbreakingPrefixes parse_nonbreaking_prefixes(std::istream& in) {
  NonbreakingPrefixes p;
  constexpr std::string_view kMarker = "#NUMERIC_ONLY#";
  std::string item;
  while (std::getline(in, item)) {
    if (item.empty() || item == "0" || item[0] == '#') continue;  // Perl: ($item) is false for "0"
    // /(.*)[\s]+(\#NUMERIC_ONLY\#)/: the greedy (.*) ends one whitespace before the last marker.
    const size_t m = item.rfind(kMarker);
    if (m != std::string::npos && m >= 1 && static_cast<unsigned char>(item[m - 1]) < 0x80 &&
        is_space(static_cast<unsigned char>(item[m - 1]))) {
      p.kind[item.substr(0, m - 1)] = 2;
    } else {
      p.kind[item] = 1;
    }
  }
  return p;
}

NonbreakingPrefixes load_nonbreaking_prefixes(const std::string& dir, const std::string& lang) {
  const std::string path = dir + "/nonbreaking_prefix." + lang;
  std::ifstream f(path);
  REALMT_CHECK(
      f.good(),
      "Moses tokenizer: cannot read {} (the nonbreaking_prefixes folder of a Moses checkout, "
      "scripts/share/nonbreaking_prefixes, or of the mosestokenizer pip package; "
      "tools/moses-scripts "
      "fetches one)",
      path);
  return parse_nonbreaking_prefixes(f);
}

MosesTokenizer::MosesTokenizer(MosesTokenizerOptions options, NonbreakingPrefixes prefixes)
    : options_(std::move(options)), prefixes_(std::move(prefixes)) {}

namespace {

// " $text ", whitespace runs to one space, control characters out, trimmed.
U32 normalize_spaces(const U32& t) {
  U32 s;
  s += U' ';
  bool in_space = true;
  for (char32_t c : t) {
    if (is_space(c)) {
      if (!in_space) s += U' ';
      in_space = true;
    } else {
      s += c;
      in_space = false;
    }
  }
  if (!in_space) s += U' ';
  U32 kept;
  for (char32_t c : s)
    if (c > 0x1F) kept += c;
  return squeeze_trim(kept);
}

// Separate out all "other" special characters (with the Finnish, Swedish, tdt and Catalan
// exceptions for ':', '\'' and the middle dot).
U32 separate_specials(const U32& t, const std::string& lang) {
  auto plain = [](char32_t c) {
    return is_alnum(c) || is_space(c) || c == U'.' || c == U'\'' || c == U'`' || c == U',' ||
           c == U'-';
  };
  if (lang == "fi" || lang == "sv")
    return pad_unless_lower_follows(
        pad_class(t, [&](char32_t c) { return !plain(c) && c != U':'; }), U':');
  if (lang == "tdt")
    return pad_unless_lower_follows(pad_class(t, [&](char32_t c) { return !plain(c); }), U'\'');
  if (lang == "ca")
    return pad_unless_lower_follows(
        pad_class(t, [&](char32_t c) { return !plain(c) && c != U'\u00B7'; }), U'\u00B7');
  return pad_class(t, [&](char32_t c) { return !plain(c); });
}

// -a: s/([\p{IsAlnum}])\-(?=[\p{IsAlnum}])/$1 \@-\@ /g
U32 split_hyphens(const U32& t) {
  U32 s;
  for (size_t i = 0; i < t.size(); ++i) {
    s += t[i];
    if (is_alnum(t[i]) && i + 2 < t.size() && t[i + 1] == U'-' && is_alnum(t[i + 2])) {
      s += U" @-@ ";
      ++i;
    }
  }
  return s;
}

// s/([^\p{IsN}])[,]/$1 , /g; s/[,]([^\p{IsN}])/ , $1/g; master: s/([\p{IsN}])[,]$/$1 ,/g
U32 split_commas(const U32& t, bool final_dot_rules) {
  U32 s;
  for (size_t i = 0; i < t.size(); ++i) {
    if (i + 1 < t.size() && t[i + 1] == U',' && !is_number(t[i])) {
      s += t[i];
      s += U" , ";
      ++i;
    } else {
      s += t[i];
    }
  }
  U32 out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == U',' && i + 1 < s.size() && !is_number(s[i + 1])) {
      out += U" , ";
      out += s[++i];
    } else {
      out += s[i];
    }
  }
  if (final_dot_rules && out.size() >= 2 && out.back() == U',' && is_number(out[out.size() - 2])) {
    out.pop_back();
    out += U" ,";
  }
  return out;
}

// Contractions: split right in English, left in French, Italian, Irish and Catalan; Somali and
// tdt keep glottals; elsewhere every apostrophe stands alone.
U32 split_apostrophes(U32 t, const std::string& lang) {
  auto alpha = [](char32_t c) { return is_alpha(c); };
  auto not_alpha = [](char32_t c) { return !is_alpha(c); };
  if (lang == "en") {
    t = apostrophe_rule(t, not_alpha, not_alpha, U" ' ");
    t = apostrophe_rule(
        t, [](char32_t c) { return !is_alpha(c) && !is_number(c); }, alpha, U" ' ");
    t = apostrophe_rule(t, alpha, not_alpha, U" ' ");
    t = apostrophe_rule(t, alpha, alpha, U" '");
    return apostrophe_rule(
        t, is_number, [](char32_t c) { return c == U's'; }, U" '");
  }
  if (lang == "fr" || lang == "it" || lang == "ga" || lang == "ca") {
    t = apostrophe_rule(t, not_alpha, not_alpha, U" ' ");
    t = apostrophe_rule(t, not_alpha, alpha, U" ' ");
    t = apostrophe_rule(t, alpha, not_alpha, U" ' ");
    return apostrophe_rule(t, alpha, alpha, U"' ");
  }
  if (lang == "so" || lang == "tdt") {
    t = apostrophe_rule(t, not_alpha, not_alpha, U" ' ");
    t = apostrophe_rule(t, not_alpha, alpha, U" ' ");
    return apostrophe_rule(t, alpha, not_alpha, U" ' ");
  }
  return pad_class(t, [](char32_t c) { return c == U'\''; });
}

// A word's final dot splits off unless the word is a non-breaking prefix (kind 1; kind 2 when
// a number follows), holds another dot and a letter, or the next word starts in lower case.
// split(/\s/) keeps empty fields between adjacent spaces and a leading one, drops trailing ones
// (every whitespace is a plain space by now).
U32 split_final_dots(const U32& t, const NonbreakingPrefixes& prefixes, bool final_dot_rules) {
  std::vector<U32> words(1);
  for (char32_t c : t) {
    if (c == U' ')
      words.emplace_back();
    else
      words.back() += c;
  }
  while (!words.empty() && words.back().empty()) words.pop_back();
  U32 joined;
  for (size_t i = 0; i < words.size(); ++i) {
    U32 word = words[i];
    if (word.size() >= 2 && word.back() == U'.') {  // /^(\S+)\.$/
      const U32 pre = word.substr(0, word.size() - 1);
      const bool last = i + 1 == words.size();
      const int kind = prefixes.get(encode(pre));
      bool has_alpha = false;
      for (char32_t c : pre) has_alpha = has_alpha || is_alpha(c);
      const bool next_lower = !last && !words[i + 1].empty() && is_lower(words[i + 1][0]);
      const bool next_digit =
          !last && !words[i + 1].empty() && words[i + 1][0] >= U'0' && words[i + 1][0] <= U'9';
      const bool keep =
          !(last && final_dot_rules) && ((pre.find(U'.') != U32::npos && has_alpha) || kind == 1 ||
                                         next_lower || (kind == 2 && next_digit));
      if (!keep) word = pre + U" .";
    }
    joined += word;
    joined += U' ';
  }
  U32 out = squeeze_trim(joined);
  if (final_dot_rules && out.size() >= 2 && out[out.size() - 2] == U'.' && out.back() == U'\'') {
    out.resize(out.size() - 2);  // s/\.\' ?$/ . ' /
    out += U" . ' ";
  }
  return out;
}

void escape_xml(std::string& out) {
  replace_all(out, "&", "&amp;");
  replace_all(out, "|", "&#124;");
  replace_all(out, "<", "&lt;");
  replace_all(out, ">", "&gt;");
  replace_all(out, "'", "&apos;");
  replace_all(out, "\"", "&quot;");
  replace_all(out, "[", "&#91;");
  replace_all(out, "]", "&#93;");
}

}  // namespace

std::string MosesTokenizer::tokenize(std::string_view line) const {
  REALMT_CHECK(find_invalid_utf8(line) == std::string_view::npos,
               "Moses tokenizer: the line is not valid UTF-8");
  U32 t = decode(line);
  bool blank = true;
  for (char32_t c : t) blank = blank && is_space(c);
  if (blank) return std::string(line);  // printed as read
  t = separate_specials(normalize_spaces(t), options_.lang);
  if (options_.aggressive) t = split_hyphens(t);
  std::string bytes = encode(t);
  protect_dots(bytes);
  t = split_commas(decode(bytes), options_.final_dot_rules);
  t = split_final_dots(split_apostrophes(std::move(t), options_.lang), prefixes_,
                       options_.final_dot_rules);
  std::string out = encode(t);
  restore_dots(out);
  if (options_.escape) escape_xml(out);
  return out;
}

}  // namespace realmt::metrics
