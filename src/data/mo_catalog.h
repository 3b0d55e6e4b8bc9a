// GNU gettext binary catalogs (.mo) and the filters that turn their entries into clean
// English-French sentence pairs (realmt-data mo2pairs, used by tools/fetch-corpus).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace realmt::data {

struct MoEntry {
  std::string context;              // msgctxt, empty when none
  std::string msgid, msgid_plural;  // msgid_plural empty when not a plural entry
  std::vector<std::string> msgstr;  // one form, or one per plural form
};

// All entries of a .mo file (either byte order), the header entry (empty msgid) excluded.
// Strings in a charset other than UTF-8 (from the header's Content-Type) are converted to UTF-8.
// A truncated or foreign file is an error naming the file and the entry.
std::vector<MoEntry> read_mo(const std::string& path);

struct MoFilterOptions {
  int64_t max_words = 80;   // either side over this many words: dropped
  int64_t min_letters = 3;  // either side with fewer letters outside format directives: dropped
  double max_ratio = 3.0;   // character-length ratio outside [1/max_ratio, max_ratio]: dropped
};

// Why an entry was dropped, or kKept.
enum class MoVerdict {
  kKept,
  kUntranslated,
  kMultiLine,
  kFormatOnly,
  kTooLong,
  kRatio,
  kBadEncoding
};
const char* verdict_name(MoVerdict v);

// Cleans one entry's singular msgid and first msgstr: markup tags removed, entities decoded,
// keyboard accelerators (_File, &File, ~File) removed, white space folded and trimmed.
// Returns the verdict; on kKept, en and fr hold the cleaned pair.
MoVerdict clean_mo_entry(const MoEntry& entry, const MoFilterOptions& options, std::string& en,
                         std::string& fr);

// The text with markup, accelerators and extra white space removed (exposed for tests).
std::string clean_ui_text(const std::string& text);
// Letters outside printf/Qt/Python/brace format directives (exposed for tests).
int64_t count_letters_outside_format(const std::string& text);

}  // namespace realmt::data
