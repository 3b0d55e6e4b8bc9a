// Name tables for enums: the one place an enum's spellings live, for options
// (OptionSet::add_enum), config files, checkpoint metadata, logs and error messages alike.
// An enum gets its table from a function declared beside it, in its own namespace (found by
// argument-dependent lookup):
//
//   enum class Norm { kPost, kPre };
//   constexpr auto enum_names(Norm) {
//     return std::to_array<EnumName<Norm>>({{Norm::kPost, "post"}, {Norm::kPre, "pre"}});
//   }
//
// A value's first entry is its name (what is printed, dumped and listed first); later entries
// for the same value are further spellings it is read from (Marian's float16 for f16).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/error.h"

namespace realmt {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

template <typename E>
concept NamedEnum = std::is_enum_v<E> && requires(E e) {
  enum_names(e);
};

// The value's name. A value without one is a bug in the table.
template <NamedEnum E>
const char* enum_name(E value) {
  for (const EnumName<E>& n : enum_names(E{}))
    if (n.value == value) return n.name;
  REALMT_ASSERT(false, "enum value {} has no name", static_cast<long long>(value));
  return "";
}

// The value `text` spells (any of its spellings, exactly), or nothing.
template <NamedEnum E>
std::optional<E> try_parse_enum(std::string_view text) {
  for (const EnumName<E>& n : enum_names(E{}))
    if (text == n.name) return n.value;
  return std::nullopt;
}

// Every value's name in table order (aliases: only the further spellings).
template <NamedEnum E>
std::vector<std::string> enum_spellings(bool aliases = false) {
  std::vector<std::string> out;
  const auto table = enum_names(E{});
  for (size_t i = 0; i < table.size(); ++i) {
    bool first = true;
    for (size_t j = 0; j < i; ++j) first = first && table[j].value != table[i].value;
    if (first != aliases) out.emplace_back(table[i].name);
  }
  return out;
}

// "a, b, c" (and ", or x, y" for further spellings): what an error lists as allowed.
template <NamedEnum E>
std::string enum_choices() {
  std::string out;
  for (const std::string& s : enum_spellings<E>()) out += (out.empty() ? "" : ", ") + s;
  const std::vector<std::string> aliases = enum_spellings<E>(true);
  for (size_t i = 0; i < aliases.size(); ++i) out += (i ? ", " : " (or ") + aliases[i];
  return aliases.empty() ? out : out + ")";
}

// The value `text` spells; otherwise an error "<what> 'text' is not one of: a, b, c".
template <NamedEnum E>
E parse_enum(std::string_view text, std::string_view what) {
  const std::optional<E> v = try_parse_enum<E>(text);
  REALMT_CHECK(v.has_value(), "{} '{}' is not one of: {}", what, text, enum_choices<E>());
  return *v;
}

}  // namespace realmt
