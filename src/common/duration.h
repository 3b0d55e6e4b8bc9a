// Marian's scheduling units for --after, --disp-freq, --save-freq, --valid-freq, ...
#pragma once

#include <cstdint>
#include <string>

namespace realmt {

// A training length or interval: a whole number of updates (u), target tokens (t) or epochs (e).
//   "10000u", "2e", "500000t"; a bare number means updates ("1000" == "1000u");
//   Marian's multipliers K, M, G, T (powers of 1000) before the unit: "100Ku", "10Gt", "1.5Mt"
//   (the result must be a whole number); "0" (any unit) means off / no limit.
struct Duration {
  enum class Unit { kUpdates, kTokens, kEpochs };
  Unit unit = Unit::kUpdates;
  int64_t value = 0;

  // Throws realmt::Error naming the text and the accepted forms on anything else
  // (negative, fractional result, unknown unit, empty).
  static Duration parse(const std::string& text);
  // Canonical text that parse() reads back to the same value: "10000u", "2e", "500000t".
  std::string str() const;
  bool off() const { return value == 0; }
  bool operator==(const Duration&) const = default;
};

// "updates", "tokens", "epochs".
const char* unit_name(Duration::Unit unit);

}  // namespace realmt
