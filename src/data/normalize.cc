#include "data/normalize.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include "core/error.h"

namespace realmt::data {

namespace {
bool is_ascii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}
}  // namespace

Normalization parse_normalization(const std::string& name) {
  if (name == "none") return Normalization::kNone;
  if (name == "nfc") return Normalization::kNfc;
  if (name == "nfkc") return Normalization::kNfkc;
  REALMT_FAIL("unknown normalization '{}'; choose none, nfc or nfkc", name);
}

std::string normalize(std::string_view text, Normalization form) {
  if (form == Normalization::kNone || is_ascii(text)) return std::string(text);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = form == Normalization::kNfc
                                  ? icu::Normalizer2::getNFCInstance(status)
                                  : icu::Normalizer2::getNFKCInstance(status);
  REALMT_CHECK(U_SUCCESS(status), "ICU normalizer unavailable: {}", u_errorName(status));
  const icu::UnicodeString in =
      icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), int32_t(text.size())));
  const icu::UnicodeString out = n->normalize(in, status);
  REALMT_CHECK(U_SUCCESS(status), "ICU normalization failed: {}", u_errorName(status));
  std::string result;
  out.toUTF8String(result);
  return result;
}

std::string casefold(std::string_view text) {
  icu::UnicodeString s =
      icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), int32_t(text.size())));
  s.foldCase();
  std::string result;
  s.toUTF8String(result);
  return result;
}

}  // namespace realmt::data
