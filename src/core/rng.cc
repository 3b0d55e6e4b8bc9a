#include "core/rng.h"

#include <cmath>
#include <cstdlib>

#include "core/error.h"

namespace realmt {

PhiloxBlock philox4x32_10(uint64_t key, uint64_t counter_hi, uint64_t counter_lo) {
  // Multipliers and Weyl constants from Salmon et al. (Random123).
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = static_cast<uint32_t>(counter_lo), c1 = static_cast<uint32_t>(counter_lo >> 32);
  uint32_t c2 = static_cast<uint32_t>(counter_hi), c3 = static_cast<uint32_t>(counter_hi >> 32);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(kM0) * c0, p1 = uint64_t(kM1) * c2;
    const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    const uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += kW0;
    k1 += kW1;
  }
  return {c0, c1, c2, c3};
}

uint32_t Generator::next_u32() { return philox_u32(seed_, reserve(1)); }

float Generator::uniform() { return u32_to_unit_float(next_u32()); }

float Generator::normal() {
  const uint64_t at = reserve(2);
  // 1 - u keeps the log argument in (0, 1].
  const float u1 = 1.0f - u32_to_unit_float(philox_u32(seed_, at));
  const float u2 = u32_to_unit_float(philox_u32(seed_, at + 1));
  return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.2831853071795864f * u2);
}

std::string Generator::state_string() const {
  return std::to_string(seed_) + ":" + std::to_string(offset_);
}

void Generator::restore(const std::string& state) {
  const size_t colon = state.find(':');
  REALMT_CHECK(colon != std::string::npos, "bad generator state '{}' (expected seed:offset)",
               state);
  char* end = nullptr;
  const unsigned long long s = std::strtoull(state.c_str(), &end, 10);
  REALMT_CHECK(end == state.c_str() + colon, "bad generator seed in '{}'", state);
  const unsigned long long o = std::strtoull(state.c_str() + colon + 1, &end, 10);
  REALMT_CHECK(*end == '\0' && colon + 1 < state.size(), "bad generator offset in '{}'", state);
  set_state(s, o);
}

Generator& default_generator() {
  static Generator g;
  return g;
}

}  // namespace realmt
