// WMT SGM test sets (newstest*.sgm): <doc docid="..."> ... <seg id="N">text</seg> ... </doc>.
//
// Contract:
// - Segments come back in document order (the order of the file), one per <seg>.
// - Text is trimmed of surrounding white space (as sacreBLEU and the WMT plain-text releases do)
//   and its entities are decoded: &amp; &lt; &gt; &quot; &apos; &nbsp; &#N; &#xH;. An unknown named
//   entity stays as written and is counted in unknown_entities.
//   Numeric entities for line breaks (&#13;, &#10;, ...) become a space, so that a segment
//   stays one line of text.
// - A <seg> without </seg> on its line, a segment with a numeric entity that is not a Unicode
//   scalar value, invalid UTF-8, an unreadable file and a file with no <seg> at all are errors
//   naming file:line (or the file).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace realmt::data {

struct SgmSegment {
  std::string docid;  // the enclosing <doc docid="...">, empty when none
  std::string id;     // the seg's id attribute
  std::string text;
  int64_t line = 0;  // 1-based line of the <seg> in the file
};

struct SgmDocument {
  std::vector<SgmSegment> segments;
  int64_t unknown_entities = 0;
};

SgmDocument read_sgm(const std::string& path);

// Decodes the entities listed above in `text`; `where` names the place for errors.
// Unknown named entities are kept and counted in *unknown (when not null).
std::string decode_entities(std::string_view text, const std::string& where,
                            int64_t* unknown = nullptr);

}  // namespace realmt::data
