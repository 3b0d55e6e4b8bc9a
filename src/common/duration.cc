#include "common/duration.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/error.h"

namespace realmt {

Duration Duration::parse(const std::string& text) {
  constexpr const char* kForms =
      "expected a whole number with an optional unit u (updates), "
      "t (target tokens) or e (epochs), e.g. 10000u, 500000t, 2e, 100Ku";
  REALMT_CHECK(!text.empty(), "empty duration; {}", kForms);
  std::string number = text;
  Duration d;
  switch (number.back()) {
    case 'u': d.unit = Unit::kUpdates, number.pop_back(); break;
    case 't': d.unit = Unit::kTokens, number.pop_back(); break;
    case 'e': d.unit = Unit::kEpochs, number.pop_back(); break;
    default: break;
  }
  double scale = 1;
  if (!number.empty()) {
    switch (number.back()) {
      case 'K': scale = 1e3, number.pop_back(); break;
      case 'M': scale = 1e6, number.pop_back(); break;
      case 'G': scale = 1e9, number.pop_back(); break;
      case 'T': scale = 1e12, number.pop_back(); break;
      default: break;
    }
  }
  // Digits with an optional fraction only: no sign, no exponent, no spaces.
  const bool digits_only = !number.empty() &&
                           number.find_first_not_of("0123456789.") == std::string::npos &&
                           number.find('.') == number.rfind('.') && number != ".";
  REALMT_CHECK(digits_only, "invalid duration '{}'; {}", text, kForms);
  double x = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), x);
  REALMT_CHECK(ec == std::errc() && ptr == number.data() + number.size(),
               "invalid duration '{}'; {}", text, kForms);
  // Round before the whole-number check so that 1.5K (1500.0000000000002 in binary) passes.
  const double total = x * scale;
  const double whole = std::round(total);
  REALMT_CHECK(std::fabs(total - whole) <= 1e-9 * std::max(1.0, whole) && whole < 9e18,
               "invalid duration '{}': not a whole number of {}", text, unit_name(d.unit));
  d.value = static_cast<int64_t>(whole);
  return d;
}

std::string Duration::str() const {
  const char suffix = unit == Unit::kUpdates ? 'u' : unit == Unit::kTokens ? 't' : 'e';
  return std::to_string(value) + suffix;
}

const char* unit_name(Duration::Unit unit) {
  switch (unit) {
    case Duration::Unit::kUpdates: return "updates";
    case Duration::Unit::kTokens: return "target tokens";
    case Duration::Unit::kEpochs: return "epochs";
  }
  return "?";
}

}  // namespace realmt
