#include "data/mo_catalog.h"

#include <unicode/uchar.h>
#include <unicode/ucnv.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "core/error.h"
#include "data/sgm_reader.h"
#include "common/utf8.h"

namespace realmt::data {

namespace {

std::vector<std::string> split_nul(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t z = s.find('\0', start);
    parts.push_back(s.substr(start, z == std::string::npos ? z : z - start));
    if (z == std::string::npos) return parts;
    start = z + 1;
  }
}

std::string to_utf8(const std::string& s, const std::string& charset) {
  if (charset.empty() || charset == "UTF-8" || charset == "utf-8" || charset == "CHARSET") return s;
  icu::UnicodeString u(s.data(), int32_t(s.size()), charset.c_str());
  std::string out;
  u.toUTF8String(out);
  return out;
}

}  // namespace

std::vector<MoEntry> read_mo(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REALMT_CHECK(in.good(), "cannot open {}", path);
  const std::string data((std::istreambuf_iterator<char>(in)), {});
  REALMT_CHECK(data.size() >= 28, "{}: too short for a .mo catalog ({} bytes)", path, data.size());
  uint32_t magic;
  std::memcpy(&magic, data.data(), 4);
  const bool swap = magic == 0xde120495u;
  REALMT_CHECK(magic == 0x950412deu || swap, "{}: not a gettext .mo catalog (bad magic number)",
               path);
  auto u32 = [&](size_t at) -> uint32_t {
    REALMT_CHECK(at + 4 <= data.size(), "{}: truncated .mo catalog (offset {} past the end)", path,
                 at);
    uint32_t v;
    std::memcpy(&v, data.data() + at, 4);
    return swap ? __builtin_bswap32(v) : v;
  };
  const uint32_t n = u32(8), orig = u32(12), trans = u32(16);
  auto str = [&](uint32_t table, uint32_t i) {
    const uint32_t len = u32(table + 8 * size_t(i)), off = u32(table + 8 * size_t(i) + 4);
    REALMT_CHECK(size_t(off) + len <= data.size(), "{}: entry {}: string past the end of the file",
                 path, i);
    return data.substr(off, len);
  };
  std::string charset;
  std::vector<MoEntry> entries;
  for (uint32_t i = 0; i < n; ++i) {
    const std::string id = str(orig, i), tr = str(trans, i);
    if (id.empty()) {  // the header: find the charset
      const size_t at = tr.find("charset=");
      if (at != std::string::npos) {
        const size_t end = tr.find_first_of(" ;\n", at);
        charset = tr.substr(at + 8, end == std::string::npos ? end : end - at - 8);
        // ICU turns text in a charset it does not know into nothing: every entry would be
        // dropped as untranslated, silently.
        if (!charset.empty() && charset != "UTF-8" && charset != "utf-8" && charset != "CHARSET") {
          UErrorCode status = U_ZERO_ERROR;
          UConverter* conv = ucnv_open(charset.c_str(), &status);
          if (conv) ucnv_close(conv);
          REALMT_CHECK(
              U_SUCCESS(status) && conv != nullptr,
              "{}: unknown charset '{}' in the catalog header (Content-Type); convert the catalog "
              "to UTF-8 (msgconv) or leave it out",
              path, charset);
        }
      }
      continue;
    }
    MoEntry e;
    std::string key = to_utf8(id, charset);
    const size_t eot = key.find('\x04');
    if (eot != std::string::npos) e.context = key.substr(0, eot), key = key.substr(eot + 1);
    const auto ids = split_nul(key);
    e.msgid = ids[0];
    if (ids.size() > 1) e.msgid_plural = ids[1];
    e.msgstr = split_nul(to_utf8(tr, charset));
    entries.push_back(std::move(e));
  }
  return entries;
}

const char* verdict_name(MoVerdict v) {
  switch (v) {
    case MoVerdict::kKept: return "kept";
    case MoVerdict::kUntranslated: return "untranslated";
    case MoVerdict::kMultiLine: return "multi-line";
    case MoVerdict::kFormatOnly: return "format-only";
    case MoVerdict::kTooLong: return "too-long";
    case MoVerdict::kRatio: return "ratio";
    case MoVerdict::kBadEncoding: return "bad-encoding";
  }
  return "?";
}

std::string clean_ui_text(const std::string& text) {
  // 1. Markup tags (<b>, </span>, <a href="...">) go; entities are decoded afterwards.
  std::string s;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() &&
        (std::isalpha(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '/')) {
      const size_t close = text.find('>', i);
      if (close != std::string::npos && text.find('<', i + 1) > close) {
        s += ' ';
        i = close;
        continue;
      }
    }
    s += text[i];
  }
  // 2. Accelerators: one '_', '&' or '~' right before a letter or digit marks the access key
  //    (GTK "_Open", Qt/KDE "&Open", LibreOffice "~Open"). An '&' that starts an entity is not one.
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if ((c == '_' || c == '&' || c == '~') && i + 1 < s.size() &&
        std::isalnum(static_cast<unsigned char>(s[i + 1]))) {
      const bool entity = c == '&' && s.find(';', i) != std::string::npos &&
                          s.find(';', i) - i <= 8 && s.find(' ', i) > s.find(';', i);
      const bool in_identifier = c == '_' && i > 0 &&
                                 std::isalnum(static_cast<unsigned char>(s[i - 1])) &&
                                 std::count(s.begin(), s.end(), '_') > 1;
      if (!entity && !in_identifier) continue;
    }
    t += c;
  }
  t = decode_entities(t, "catalog entry");
  // 3. White space folded to single spaces, trimmed.
  std::string out;
  for (char c : t) {
    const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

int64_t count_letters_outside_format(const std::string& text) {
  int64_t letters = 0;
  int32_t i = 0;
  const int32_t n = int32_t(text.size());
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  while (i < n) {
    if (s[i] == '%') {  // printf (%s, %1$d, %-5.2f, %lld), Qt (%1), Python (%(name)s)
      ++i;
      if (i < n && s[i] == '(') {
        while (i < n && s[i] != ')') ++i;
        ++i;
      }
      while (i < n && std::strchr("0123456789$-+ #.*'hlLqjztI", s[i]) && s[i] != 0) ++i;
      if (i < n && std::isalpha(s[i])) ++i;
      continue;
    }
    if (s[i] == '{') {  // brace formats: {0}, {name}, {count:d}
      int32_t j = i + 1;
      while (j < n && s[j] != '}' && s[j] != ' ' && s[j] != '{') ++j;
      if (j < n && s[j] == '}') {
        i = j + 1;
        continue;
      }
    }
    UChar32 c;
    U8_NEXT(s, i, n, c);
    if (c >= 0 && u_isalpha(c)) ++letters;
  }
  return letters;
}

MoVerdict clean_mo_entry(const MoEntry& entry, const MoFilterOptions& o, std::string& en,
                         std::string& fr) {
  if (entry.msgstr.empty() || entry.msgstr[0].empty()) return MoVerdict::kUntranslated;
  if (!is_valid_utf8(entry.msgid) || !is_valid_utf8(entry.msgstr[0]))
    return MoVerdict::kBadEncoding;
  if (entry.msgid.find('\n') != std::string::npos ||
      entry.msgstr[0].find('\n') != std::string::npos) {
    return MoVerdict::kMultiLine;
  }
  en = clean_ui_text(entry.msgid);
  fr = clean_ui_text(entry.msgstr[0]);
  if (fr.empty() || en == fr) return MoVerdict::kUntranslated;
  if (count_letters_outside_format(en) < o.min_letters ||
      count_letters_outside_format(fr) < o.min_letters) {
    return MoVerdict::kFormatOnly;
  }
  if (o.max_words > 0 &&
      (count_words(en) > size_t(o.max_words) || count_words(fr) > size_t(o.max_words))) {
    return MoVerdict::kTooLong;
  }
  const double a = double(count_code_points(en)), b = double(count_code_points(fr));
  if (o.max_ratio > 0 && std::max(a, b) > o.max_ratio * std::min(a, b)) return MoVerdict::kRatio;
  return MoVerdict::kKept;
}

}  // namespace realmt::data
