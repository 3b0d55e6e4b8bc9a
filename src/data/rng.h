// A small deterministic random generator for data order (shuffles). Unlike std::shuffle and
// std::uniform_int_distribution, its results are the same on every standard library, so a seed
// gives the same batches everywhere.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace realmt::data {

// SplitMix64 (Steele, Lea, Flood 2014): passes BigCrush, one 64-bit state.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), without modulo bias (Lemire 2019, multiply-and-reject).
  uint64_t below(uint64_t n) {
    for (;;) {
      const unsigned __int128 m = (unsigned __int128)next() * n;
      const uint64_t low = uint64_t(m);
      if (low >= n || low >= (-n) % n) return uint64_t(m >> 64);
    }
  }

 private:
  uint64_t state_;
};

// A seed for one purpose (e.g. epoch 3's shuffle) derived from the user's seed.
inline uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b = 0) {
  Rng r(seed ^ (a * 0xD1B54A32D192ED03ULL) ^ (b * 0x8CB92BA72F3D8DD7ULL));
  r.next();
  return r.next();
}

// Fisher-Yates shuffle.
template <typename T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

}  // namespace realmt::data
