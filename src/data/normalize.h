// Unicode normalization and case folding (ICU), for cleaning and for comparing sentences.
#pragma once

#include <string>
#include <string_view>

namespace realmt::data {

enum class Normalization { kNone, kNfc, kNfkc };

// Parses "none", "nfc", "nfkc"; anything else is an error naming the valid choices.
Normalization parse_normalization(const std::string& name);

// `text` (valid UTF-8) in the given normalization form. ASCII text is returned unchanged.
std::string normalize(std::string_view text, Normalization form);

// Unicode full case folding of `text` (for case-insensitive comparison).
std::string casefold(std::string_view text);

}  // namespace realmt::data
