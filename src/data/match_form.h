// How realmt-data split compares source sentences: exactly, case-folded, or in a "masked" form
// that also catches near-duplicates (the same UI string with other numbers, placeholders, case,
// punctuation or spacing), so that no near-copy of a dev/test sentence is left in train.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "common/enum_names.h"

namespace realmt::data {

enum class SourceMatch { kExact, kCasefold, kMasked };
constexpr auto enum_names(SourceMatch) {
  return std::to_array<EnumName<SourceMatch>>({{SourceMatch::kExact, "exact"},
                                               {SourceMatch::kCasefold, "casefold"},
                                               {SourceMatch::kMasked, "masked"}});
}

// The masked form: Unicode case folding; every format placeholder (printf %s %d %5.2f %lld %1$s,
// Python %(name)s, Qt %1, brace {0} {name} {count:d}) and every run of digits becomes "0", and
// consecutive ones (separated by nothing but non-letters, as in "%d:%02d" or "1,000") one "0";
// any other run of characters that are neither letters nor combining marks (punctuation,
// symbols, white space) becomes one space; no space at either end.
// "Page %d of %d." and "page 3 of 12" both give "page 0 of 0".
std::string masked_form(std::string_view text);

// The form compared under `match`: the text itself, casefold(text) or masked_form(text).
std::string match_form(std::string_view text, SourceMatch match);

// Length of the format placeholder starting at text[at] ('%' or '{'), 0 when none starts there
// ("%%", a lone "%" or "{a b}" are not placeholders).
size_t placeholder_length(std::string_view text, size_t at);

}  // namespace realmt::data
