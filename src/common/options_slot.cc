#include "common/options_slot.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace realmt::detail {
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

namespace {

// Whole-string parses: "12abc", " 12" and "" are errors, never a silent prefix.
template <typename Int>
bool parse_int(const std::string& text, Int* out) {
  const char* begin = text.data();
  if (text.size() > 1 && text[0] == '+' && text[1] != '-') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

// Finite numbers only: from_chars also reads "nan" and "inf", which no option means (an
// optimizer-params of nan would silently poison every weight).
template <typename Real>
bool parse_real(const std::string& text, Real* out) {
  const char* begin = text.data();
  if (text.size() > 1 && text[0] == '+' && text[1] != '-') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size() &&
         std::isfinite(*out);
}

// Shortest text that reads back to the same bits. Plain decimals unless the exponent form is
// much shorter: "0.0003" rather than "3e-04", but "1e-09" rather than "0.000000001".
template <typename Real>
std::string real_text(Real x) {
  char sci[64], fixed[400];
  const auto s = std::to_chars(sci, sci + sizeof(sci), x, std::chars_format::scientific);
  const auto f = std::to_chars(fixed, fixed + sizeof(fixed), x, std::chars_format::fixed);
  if (f.ec == std::errc() && f.ptr - fixed <= s.ptr - sci + 2) return std::string(fixed, f.ptr);
  return std::string(sci, s.ptr);
}

// Per-type parse/print/describe. Each `Codec<T>` has: parse, text, metavar, expected.
template <typename T>
struct Codec;

template <>
struct Codec<bool> {
  static bool parse(const std::string& s, bool* out) { return parse_bool(s, out); }
  static std::string text(bool v) { return v ? "true" : "false"; }
  static constexpr const char* kMetavar = "BOOL";
  static constexpr const char* kExpected = "a boolean (true/false, yes/no, on/off, 1/0)";
};
template <>
struct Codec<int> {
  static bool parse(const std::string& s, int* out) { return parse_int(s, out); }
  static std::string text(int v) { return std::to_string(v); }
  static constexpr const char* kMetavar = "INT";
  static constexpr const char* kExpected = "an integer (32-bit)";
};
template <>
struct Codec<int64_t> {
  static bool parse(const std::string& s, int64_t* out) { return parse_int(s, out); }
  static std::string text(int64_t v) { return std::to_string(v); }
  static constexpr const char* kMetavar = "INT";
  static constexpr const char* kExpected = "an integer";
};
template <>
struct Codec<float> {
  static bool parse(const std::string& s, float* out) { return parse_real(s, out); }
  static std::string text(float v) { return real_text(v); }
  static constexpr const char* kMetavar = "FLOAT";
  static constexpr const char* kExpected = "a number (e.g. 0.1, 1e-4; not nan or inf)";
};
template <>
struct Codec<double> {
  static bool parse(const std::string& s, double* out) { return parse_real(s, out); }
  static std::string text(double v) { return real_text(v); }
  static constexpr const char* kMetavar = "FLOAT";
  static constexpr const char* kExpected = "a number (e.g. 0.1, 1e-4; not nan or inf)";
};
template <>
struct Codec<std::string> {
  static bool parse(const std::string& s, std::string* out) { return *out = s, true; }
  static std::string text(const std::string& v) { return v; }
  static constexpr const char* kMetavar = "STRING";
  static constexpr const char* kExpected = "a string";
};
template <>
struct Codec<Duration> {
  static bool parse(const std::string& s, Duration* out) {
    try {
      *out = Duration::parse(s);
      return true;
    } catch (const Error&) {
      return false;
    }
  }
  static std::string text(const Duration& v) { return v.str(); }
  static constexpr const char* kMetavar = "DURATION";
  static constexpr const char* kExpected =
      "a whole number with an optional unit u (updates), t (target tokens) or e (epochs), e.g. "
      "10000u, 2e";
};

template <typename T>
OptionSlot scalar_slot(T* field) {
  OptionSlot slot;
  slot.metavar = Codec<T>::kMetavar;
  slot.expected = Codec<T>::kExpected;
  slot.is_bool = std::is_same_v<T, bool>;
  slot.set = [field](const std::vector<std::string>& values) -> std::optional<std::string> {
    REALMT_ASSERT(values.size() == 1);
    T parsed{};
    if (!Codec<T>::parse(values[0], &parsed)) return values[0];
    *field = parsed;
    return std::nullopt;
  };
  slot.get = [field] { return std::vector<std::string>{Codec<T>::text(*field)}; };
  slot.default_text = slot.get();
  return slot;
}

template <typename T>
OptionSlot list_slot(std::vector<T>* field) {
  OptionSlot slot;
  slot.metavar = Codec<T>::kMetavar;
  slot.metavar += "...";
  slot.expected = "a list of values, each ";
  slot.expected += Codec<T>::kExpected;
  slot.is_list = true;
  slot.set = [field](const std::vector<std::string>& values) -> std::optional<std::string> {
    std::vector<T> parsed(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      T item{};
      if (!Codec<T>::parse(values[i], &item)) return values[i];
      parsed[i] = item;
    }
    *field = std::move(parsed);
    return std::nullopt;
  };
  slot.get = [field] {
    std::vector<std::string> out;
    for (const auto& v : *field) out.push_back(Codec<T>::text(v));
    return out;
  };
  slot.default_text = slot.get();
  return slot;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

bool allowed_value(const std::vector<std::string>& allowed, const std::string& v) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

}  // namespace

bool parse_bool(const std::string& text, bool* out) {
  const std::string s = lower(text);
  if (s == "true" || s == "yes" || s == "on" || s == "1" || s == "y") return *out = true, true;
  if (s == "false" || s == "no" || s == "off" || s == "0" || s == "n") return *out = false, true;
  return false;
}

OptionSlot make_slot(bool* field) { return scalar_slot(field); }
OptionSlot make_slot(int* field) { return scalar_slot(field); }
OptionSlot make_slot(int64_t* field) { return scalar_slot(field); }
OptionSlot make_slot(float* field) { return scalar_slot(field); }
OptionSlot make_slot(double* field) { return scalar_slot(field); }
OptionSlot make_slot(std::string* field) { return scalar_slot(field); }
OptionSlot make_slot(Duration* field) { return scalar_slot(field); }
OptionSlot make_slot(std::vector<std::string>* field) { return list_slot(field); }
OptionSlot make_slot(std::vector<int>* field) { return list_slot(field); }
OptionSlot make_slot(std::vector<double>* field) { return list_slot(field); }

void finish_choice_slot(OptionSlot& slot, const std::vector<std::string>& names,
                        const std::string& listed, bool is_list) {
  slot.is_list = is_list;
  slot.metavar = "{" + join(names, "|") + (is_list ? "}..." : "}");
  slot.expected = (is_list ? "a list of values, each one of: " : "one of: ") + listed;
  slot.default_text = slot.get();
}

OptionSlot make_choice_slot(std::string* field, std::vector<std::string> allowed) {
  REALMT_ASSERT(allowed_value(allowed, *field), "default '{}' is not among the choices", *field);
  OptionSlot slot;
  slot.set = [field,
              allowed](const std::vector<std::string>& values) -> std::optional<std::string> {
    REALMT_ASSERT(values.size() == 1);
    if (!allowed_value(allowed, values[0])) return values[0];
    *field = values[0];
    return std::nullopt;
  };
  slot.get = [field] { return std::vector<std::string>{*field}; };
  finish_choice_slot(slot, allowed, join(allowed, ", "), false);
  return slot;
}

OptionSlot make_choice_slot(std::vector<std::string>* field, std::vector<std::string> allowed) {
  for (const auto& v : *field)
    REALMT_ASSERT(allowed_value(allowed, v), "default '{}' is not a choice", v);
  OptionSlot slot;
  slot.set = [field,
              allowed](const std::vector<std::string>& values) -> std::optional<std::string> {
    for (const auto& v : values)
      if (!allowed_value(allowed, v)) return v;
    *field = values;
    return std::nullopt;
  };
  slot.get = [field] { return *field; };
  finish_choice_slot(slot, allowed, join(allowed, ", "), true);
  return slot;
}

}  // namespace realmt::detail
