// IEEE binary16 (Half) and bfloat16 (BFloat16) storage types with round-to-nearest-even
// conversion from float. Arithmetic happens in float; these only store.
#pragma once

#include <cstdint>
#include <cstring>

namespace realmt {

namespace detail {
inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace detail

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) {
    uint32_t u = detail::f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it a (quiet) NaN after truncation
      bits = static_cast<uint16_t>((u >> 16) | 0x40u);
      return;
    }
    const uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);  // round half to even
    bits = static_cast<uint16_t>((u + rounding) >> 16);
  }
  explicit operator float() const { return detail::bits_f32(uint32_t(bits) << 16); }
};

struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) {
    const uint32_t u = detail::f32_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t absu = u & 0x7fffffffu;
    if (absu >= 0x7f800000u) {  // Inf or NaN
      bits = static_cast<uint16_t>(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0u));
      return;
    }
    if (absu >= 0x477ff000u) {  // rounds to >= 65520: overflow to Inf
      bits = static_cast<uint16_t>(sign | 0x7c00u);
      return;
    }
    if (absu < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
      // Adding 0.5 shifts the value so that float's own rounding yields the subnormal bits.
      const float magic = detail::bits_f32(0x3f000000u);  // 0.5
      const float r = detail::bits_f32(absu) + magic;
      bits = static_cast<uint16_t>(sign | (detail::f32_bits(r) - 0x3f000000u));
      return;
    }
    uint32_t mant_odd = (absu >> 13) & 1u;
    uint32_t v = absu + 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to even
    bits = static_cast<uint16_t>(sign | (v >> 13));
  }
  explicit operator float() const {
    const uint32_t sign = uint32_t(bits & 0x8000u) << 16;
    const uint32_t exp = (bits >> 10) & 0x1fu;
    const uint32_t mant = bits & 0x3ffu;
    if (exp == 0) {  // zero or subnormal: mant * 2^-24
      const float f = static_cast<float>(mant) * detail::bits_f32(0x33800000u);
      return detail::bits_f32(detail::f32_bits(f) | sign);
    }
    if (exp == 31) return detail::bits_f32(sign | 0x7f800000u | (mant << 13));
    return detail::bits_f32(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

}  // namespace realmt
