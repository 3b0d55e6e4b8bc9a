// Counter-based random numbers: Philox-4x32-10 (Salmon et al., SC'11). A draw is a pure
// function of (seed, counter), so the CPU and a GPU produce the same dropout mask from the
// same seed and offset, in any order and on any number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace realmt {

using PhiloxBlock = std::array<uint32_t, 4>;

// Ten rounds of Philox-4x32 on the 128-bit counter with the 64-bit key.
PhiloxBlock philox4x32_10(uint64_t key, uint64_t counter_hi, uint64_t counter_lo);

// Element e of the stream (seed, offset) is lane (offset + e) % 4 of the block at counter
// (offset + e) / 4. Every kernel that draws numbers uses this mapping.
inline uint32_t philox_u32(uint64_t seed, uint64_t index) {
  return philox4x32_10(seed, 0, index >> 2)[index & 3];
}
// A float in [0, 1) with 24 random bits.
inline float u32_to_unit_float(uint32_t x) {
  return static_cast<float>(x >> 8) * (1.0f / 16777216.0f);
}

// A seeded stream position. Ops reserve a range of numbers and draw them by index, so results
// do not depend on threading; saving (seed, offset) saves the generator exactly.
class Generator {
 public:
  explicit Generator(uint64_t seed = 1234) : seed_(seed) {}
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }
  void set_state(uint64_t seed, uint64_t offset) {
    seed_ = seed;
    offset_ = offset;
  }
  // Reserves n numbers (rounded up to whole blocks) and returns the offset of the first.
  uint64_t reserve(uint64_t n) {
    const uint64_t start = offset_;
    offset_ += (n + 3) & ~uint64_t(3);
    return start;
  }
  // One uniform float in [0, 1) / one u32 (advances the stream).
  float uniform();
  uint32_t next_u32();
  // A normal draw (Box-Muller on two uniforms).
  float normal();
  std::string state_string() const;  // "seed:offset"
  void restore(const std::string& state);

 private:
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The process-wide generator used by ops when none is passed (seeded from the `seed` option).
Generator& default_generator();

}  // namespace realmt
