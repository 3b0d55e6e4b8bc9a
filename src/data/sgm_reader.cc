#include "data/sgm_reader.h"

#include <cstdlib>

#include "common/utf8.h"
#include "core/error.h"
#include "data/line_reader.h"

namespace realmt::data {

namespace {

// The value of attribute `name` in a tag like <doc docid="x" ...>; empty when absent.
std::string attribute(std::string_view tag, std::string_view name) {
  size_t at = 0;
  while ((at = tag.find(name, at)) != std::string_view::npos) {
    const bool starts = at > 0 && (tag[at - 1] == ' ' || tag[at - 1] == '\t');
    size_t p = at + name.size();
    while (p < tag.size() && tag[p] == ' ') ++p;
    if (starts && p < tag.size() && tag[p] == '=') {
      ++p;
      while (p < tag.size() && tag[p] == ' ') ++p;
      if (p < tag.size() && (tag[p] == '"' || tag[p] == '\'')) {
        const size_t end = tag.find(tag[p], p + 1);
        if (end != std::string_view::npos) return std::string(tag.substr(p + 1, end - p - 1));
      }
      size_t end = p;
      while (end < tag.size() && tag[end] != ' ' && tag[end] != '>') ++end;
      return std::string(tag.substr(p, end - p));
    }
    at += name.size();
  }
  return {};
}

// The length in bytes of the line break that `s` starts with (0 if none): the breaks of Python's
// str.splitlines() other than LF, which the line reader has already split on.
size_t line_break_bytes(std::string_view s) {
  const unsigned char c = static_cast<unsigned char>(s[0]);
  if (c == 0x0B || c == 0x0C || c == 0x0D || (c >= 0x1C && c <= 0x1E)) return 1;
  if (s.starts_with("\xC2\x85")) return 2;
  if (s.starts_with("\xE2\x80\xA8") || s.starts_with("\xE2\x80\xA9")) return 3;
  return 0;
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

}  // namespace

std::string decode_entities(std::string_view text, const std::string& where, int64_t* unknown) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      // A raw line break inside a segment (a CR, VT, FF or separator the line reader does not
      // split on, or U+0085 / U+2028 / U+2029) becomes a space, as the entities below do.
      const size_t raw_break = line_break_bytes(text.substr(i));
      if (raw_break > 0) {
        out += ' ';
        i += raw_break - 1;
      } else {
        out += text[i];
      }
      continue;
    }
    const size_t semi = text.find(';', i + 1);
    // A bare '&' (no ';' within a plausible entity length) is literal text.
    if (semi == std::string_view::npos || semi - i > 12) {
      out += '&';
      continue;
    }
    const std::string_view name = text.substr(i + 1, semi - i - 1);
    if (!name.empty() && name[0] == '#') {
      const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
      const std::string digits(name.substr(hex ? 2 : 1));
      char* end = nullptr;
      const unsigned long cp = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
      REALMT_CHECK(!digits.empty() && *end == '\0' && cp > 0 && cp <= 0x10FFFF &&
                       !(cp >= 0xD800 && cp <= 0xDFFF),
                   "{}: bad numeric entity '&{};' (not a Unicode scalar value)", where, name);
      // A line break from an entity (&#13;, &#10;, ...) would split the segment across output
      // lines (sgm2txt writes one segment a line): it becomes a space. These are the breaks of
      // Python's str.splitlines(), which sacreBLEU and most readers of the text honour.
      const bool line_break = cp == 0x0A || cp == 0x0B || cp == 0x0C || cp == 0x0D ||
                              (cp >= 0x1C && cp <= 0x1E) || cp == 0x85 || cp == 0x2028 ||
                              cp == 0x2029;
      append_utf8(out, line_break ? U' ' : char32_t(cp));
    } else if (name == "amp") {
      out += '&';
    } else if (name == "lt") {
      out += '<';
    } else if (name == "gt") {
      out += '>';
    } else if (name == "quot") {
      out += '"';
    } else if (name == "apos") {
      out += '\'';
    } else if (name == "nbsp") {
      append_utf8(out, U'\u00A0');
    } else {
      if (unknown) ++*unknown;
      out += '&';
      continue;
    }
    i = semi;
  }
  return out;
}

SgmDocument read_sgm(const std::string& path) {
  SgmDocument doc;
  LineReader reader(path);
  std::string line, docid;
  while (reader.next(line)) {
    const std::string where = format("{}:{}", path, reader.line_number());
    size_t pos = 0;
    // A line may hold several tags (<doc ...><seg ...>...</seg>); scan them all.
    while ((pos = line.find('<', pos)) != std::string::npos) {
      const size_t close = line.find('>', pos);
      REALMT_CHECK(close != std::string::npos, "{}: unterminated tag '{}'", where,
                   line.substr(pos, 40));
      const std::string_view tag(line.data() + pos, close - pos + 1);
      if (tag.starts_with("<doc ") || tag.starts_with("<doc>")) {
        docid = attribute(tag, "docid");
      } else if (tag.starts_with("</doc")) {
        docid.clear();
      } else if (tag.starts_with("<seg ") || tag == "<seg>") {
        const size_t end = line.find("</seg>", close);
        REALMT_CHECK(end != std::string::npos,
                     "{}: <seg> without </seg> on the same line; SGM test sets hold one segment "
                     "per line",
                     where);
        SgmSegment seg;
        seg.docid = docid;
        seg.id = attribute(tag, "id");
        seg.line = reader.line_number();
        // Trimmed again after decoding: a line-break entity at either end leaves a space.
        seg.text = std::string(
            trim(decode_entities(trim(std::string_view(line).substr(close + 1, end - close - 1)),
                                 where, &doc.unknown_entities)));
        doc.segments.push_back(std::move(seg));
        pos = end + 6;
        continue;
      }
      pos = close + 1;
    }
  }
  REALMT_CHECK(!doc.segments.empty(),
               "{}: no <seg> found in {} lines: not an SGM test set (or an empty one)", path,
               reader.line_number());
  return doc;
}

}  // namespace realmt::data
