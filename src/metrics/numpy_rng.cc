#include "metrics/numpy_rng.h"

#include "core/error.h"

namespace realmt::metrics {

namespace {
// numpy/random/bit_generator.pyx SeedSequence constants.
constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875, kInitB = 0x8b51f9dd,
                   kMultB = 0x58f38ded;
constexpr uint32_t kMixL = 0xca01f9dd, kMixR = 0x4973f715;
constexpr int kPoolSize = 4;

constexpr unsigned __int128 kPcgMult =
    (static_cast<unsigned __int128>(0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;

uint32_t mix(uint32_t x, uint32_t y) {
  uint32_t r = kMixL * x - kMixR * y;
  return r ^ (r >> 16);
}
}  // namespace

std::vector<uint64_t> NumpyRng::seed_sequence_state(uint64_t seed) {
  std::vector<uint32_t> entropy;  // the seed as little-endian 32-bit words
  do {
    entropy.push_back(static_cast<uint32_t>(seed));
    seed >>= 32;
  } while (seed);
  uint32_t hash_const = kInitA;
  auto hashmix = [&hash_const](uint32_t v) {
    v ^= hash_const;
    hash_const *= kMultA;
    v *= hash_const;
    return v ^ (v >> 16);
  };
  uint32_t pool[kPoolSize];
  for (int i = 0; i < kPoolSize; ++i)
    pool[i] = hashmix(i < static_cast<int>(entropy.size()) ? entropy[i] : 0);
  for (int src = 0; src < kPoolSize; ++src) {
    for (int dst = 0; dst < kPoolSize; ++dst) {
      if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
    }
  }
  for (size_t src = kPoolSize; src < entropy.size(); ++src) {
    for (int dst = 0; dst < kPoolSize; ++dst) pool[dst] = mix(pool[dst], hashmix(entropy[src]));
  }
  uint32_t words[8];
  uint32_t g = kInitB;
  for (int i = 0; i < 8; ++i) {
    uint32_t v = pool[i % kPoolSize];
    v ^= g;
    g *= kMultB;
    v *= g;
    words[i] = v ^ (v >> 16);
  }
  std::vector<uint64_t> out(4);
  for (int k = 0; k < 4; ++k)
    out[k] = words[2 * k] | (static_cast<uint64_t>(words[2 * k + 1]) << 32);
  return out;
}

NumpyRng::NumpyRng(uint64_t seed) {
  const auto u = seed_sequence_state(seed);
  const unsigned __int128 initstate = (static_cast<unsigned __int128>(u[0]) << 64) | u[1];
  const unsigned __int128 initseq = (static_cast<unsigned __int128>(u[2]) << 64) | u[3];
  inc_ = (initseq << 1) | 1;
  state_ = 0;
  state_ = state_ * kPcgMult + inc_;
  state_ += initstate;
  state_ = state_ * kPcgMult + inc_;
}

uint64_t NumpyRng::next64() {
  state_ = state_ * kPcgMult + inc_;
  const auto hi = static_cast<uint64_t>(state_ >> 64), lo = static_cast<uint64_t>(state_);
  const unsigned rot = static_cast<unsigned>(state_ >> 122);
  const uint64_t x = hi ^ lo;
  return (x >> rot) | (x << ((64 - rot) & 63));
}

uint32_t NumpyRng::next32() {
  if (has32_) {
    has32_ = false;
    return buf32_;
  }
  const uint64_t v = next64();
  has32_ = true;
  buf32_ = static_cast<uint32_t>(v >> 32);
  return static_cast<uint32_t>(v);
}

uint32_t NumpyRng::bounded(uint32_t n) {
  REALMT_ASSERT(n >= 1);
  if (n == 1) return 0;
  // Lemire's nearly divisionless method on 32-bit words (numpy's buffered_bounded_lemire_uint32).
  const uint32_t rng_excl = n;
  uint64_t m = static_cast<uint64_t>(next32()) * rng_excl;
  auto left = static_cast<uint32_t>(m);
  if (left < rng_excl) {
    const uint32_t threshold = (0xFFFFFFFFu - (n - 1)) % rng_excl;
    while (left < threshold) {
      m = static_cast<uint64_t>(next32()) * rng_excl;
      left = static_cast<uint32_t>(m);
    }
  }
  return static_cast<uint32_t>(m >> 32);
}

std::vector<uint32_t> NumpyRng::choice(uint32_t n, size_t rows) {
  std::vector<uint32_t> out(rows * n);
  for (auto& v : out) v = bounded(n);
  return out;
}

std::vector<uint8_t> NumpyRng::bools(size_t rows, size_t n) {
  std::vector<uint8_t> out(rows * n);
  for (auto& v : out) {
    if (bool_bits_left_ == 0) {
      bool_buf_ = next32();
      bool_bits_left_ = 31;
    } else {
      bool_buf_ >>= 1;
      --bool_bits_left_;
    }
    v = static_cast<uint8_t>(bool_buf_ & 1u);
  }
  return out;
}

}  // namespace realmt::metrics
