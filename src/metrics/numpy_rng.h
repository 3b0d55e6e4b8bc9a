// NumPy's default_rng(seed) (SeedSequence + PCG64 XSL-RR 128/64) and the two draws sacreBLEU
// makes from it, bit for bit (NumPy's PCG64 and its bounded integers):
//   rng.choice(n, size=(rows, n), replace=True)   -> bounded 32-bit draws (Lemire)
//   rng.integers(2, size=(rows, n), dtype=bool)   -> bits of 32-bit words, LSB first
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace realmt::metrics {

class NumpyRng {
 public:
  // default_rng(seed) for a non-negative integer seed.
  explicit NumpyRng(uint64_t seed);
  // The generator state words SeedSequence hands to PCG64 (for tests).
  static std::vector<uint64_t> seed_sequence_state(uint64_t seed);

  uint64_t next64();
  uint32_t next32();  // low half of a 64-bit word first, then its high half

  // integers(0, n) for 1 <= n <= 2^32: n == 1 draws nothing.
  uint32_t bounded(uint32_t n);
  // rows x n indices, row-major, as rng.choice(n, size=(rows, n)).
  std::vector<uint32_t> choice(uint32_t n, size_t rows);
  // rows x n booleans, row-major, as rng.integers(2, size=(rows, n), dtype=bool).
  std::vector<uint8_t> bools(size_t rows, size_t n);

 private:
  unsigned __int128 state_ = 0;
  unsigned __int128 inc_ = 0;
  bool has32_ = false;
  uint32_t buf32_ = 0;
  int bool_bits_left_ = 0;
  uint32_t bool_buf_ = 0;
};

}  // namespace realmt::metrics
