// Internal to the option system (options.h): one bound option, type-erased. Every value goes
// through text, so the command line and YAML scalars are parsed by the same code.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/duration.h"
#include "common/enum_names.h"

namespace realmt::detail {

struct OptionSlot {
  std::string group;
  std::string name;
  std::string help;
  std::string metavar;   // for --help: "INT", "FLOAT", "STRING", "DURATION", "{a|b}", ...
  std::string expected;  // for errors: "an integer", "one of: none|sum|mean", ...
  bool is_bool = false;
  bool is_list = false;
  char short_name = 0;
  std::vector<std::string> default_text;  // the field's value when it was bound
  // Sets the field from text (exactly one value unless is_list). Returns the offending value
  // when one does not parse; the field is unchanged then.
  std::function<std::optional<std::string>(const std::vector<std::string>&)> set;
  // The field's current value as text that `set` reads back to the same value.
  std::function<std::vector<std::string>()> get;
  bool was_set = false;
  std::string origin = "default";  // "file.yml:12", "command line" or "task <name>" once set
  bool from_preset = false;        // set by a preset (Marian's --task), not by a file or the CLI
  std::optional<std::string> implicit;  // the value when given alone on the command line
  bool required = false;                // must be set by a file or the command line
  // Marian compatibility: accepted without effect (a note), or refused unless harmless.
  enum class Compat { kNone, kNoEffect, kUnavailable };
  Compat compat = Compat::kNone;
  std::string compat_reason;
  std::vector<std::string> harmless;  // kUnavailable: accepted values (as text, e.g. "0", "false")
};

// The field of an option bound by OptionSet::add_no_effect / add_unavailable.
struct OwnedValue {
  bool flag = false;
  std::string text;
  std::vector<std::string> list;
};

// One factory per supported field type; the field holds the default.
OptionSlot make_slot(bool* field);
OptionSlot make_slot(int* field);
OptionSlot make_slot(int64_t* field);
OptionSlot make_slot(float* field);
OptionSlot make_slot(double* field);
OptionSlot make_slot(std::string* field);
OptionSlot make_slot(Duration* field);
OptionSlot make_slot(std::vector<std::string>* field);
OptionSlot make_slot(std::vector<int>* field);
OptionSlot make_slot(std::vector<double>* field);
// A string (or list of strings) restricted to `allowed`.
OptionSlot make_choice_slot(std::string* field, std::vector<std::string> allowed);
OptionSlot make_choice_slot(std::vector<std::string>* field, std::vector<std::string> allowed);

// Completes a slot whose set/get are made: the metavar ("{a|b}", "{a|b}..." for a list) and the
// expected text ("one of: <listed>", "a list of values, each one of: <listed>") of a fixed set of
// `names`, and the default text.
void finish_choice_slot(OptionSlot& slot, const std::vector<std::string>& names,
                        const std::string& listed, bool is_list);

// An enum (or list of enums) through its name table (common/enum_names.h): read from any of its
// spellings, written by its name.
template <NamedEnum E>
OptionSlot make_enum_slot(E* field) {
  OptionSlot slot;
  slot.set = [field](const std::vector<std::string>& values) -> std::optional<std::string> {
    const std::optional<E> v = try_parse_enum<E>(values.at(0));
    if (!v) return values[0];
    *field = *v;
    return std::nullopt;
  };
  slot.get = [field] { return std::vector<std::string>{enum_name(*field)}; };
  finish_choice_slot(slot, enum_spellings<E>(), enum_choices<E>(), false);
  return slot;
}
template <NamedEnum E>
OptionSlot make_enum_slot(std::vector<E>* field) {
  OptionSlot slot;
  slot.set = [field](const std::vector<std::string>& values) -> std::optional<std::string> {
    std::vector<E> parsed;
    for (const std::string& text : values) {
      const std::optional<E> v = try_parse_enum<E>(text);
      if (!v) return text;
      parsed.push_back(*v);
    }
    *field = std::move(parsed);
    return std::nullopt;
  };
  slot.get = [field] {
    std::vector<std::string> out;
    for (E v : *field) out.emplace_back(enum_name(v));
    return out;
  };
  finish_choice_slot(slot, enum_spellings<E>(), enum_choices<E>(), true);
  return slot;
}

// Rethrows a realmt::Error from parsing a file or from an options check as the UsageError it is,
// without the source location (it means nothing to a user), prefixed "<program>: " once.
[[noreturn]] void throw_as_usage(const std::exception& e, const std::string& program);

// Text forms shared by CLI and YAML: bool accepts true/false, yes/no, on/off, 1/0 (any case).
bool parse_bool(const std::string& text, bool* out);
// ASCII lower case (option values are compared without case where Marian does so).
std::string lower(std::string s);

}  // namespace realmt::detail
