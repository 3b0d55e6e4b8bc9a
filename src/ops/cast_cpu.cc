// CPU cast: one templated loop per (from, to) pair, split over threads.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/parallel.h"
#include "ops/cast.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
constexpr bool kHalfType = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool kIntType =
    std::is_same_v<T, int32_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>;

// d narrowed to f32 with round-to-odd: truncate, then set the last bit if anything was lost.
// A value rounded to odd with at least two bits more than the final format rounds to nearest
// even in that format exactly as d itself would (Boldo and Melquiond, "When double rounding
// is odd", 2005); f32 has 13 bits more than f16 and 16 more than bf16.
float round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);  // truncate
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= 1u;
  std::memcpy(&f, &u, 4);
  return f;
}

template <typename To, typename From>
To convert(From v) {
  if constexpr (kHalfType<To>) {
    if constexpr (std::is_same_v<From, double> || std::is_same_v<From, int32_t>)
      return To(round_to_odd(static_cast<double>(v)));
    else
      return To(scalar_cast<float>(v));  // f32, f16, bf16 and u8 are exact in f32
  } else if constexpr (kIntType<To> && !kIntType<From>) {
    const double d = scalar_cast<double>(v);
    if (std::isnan(d)) return To(0);
    const double t = std::trunc(d);
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    return static_cast<To>(t < lo ? lo : (t > hi ? hi : t));
  } else {
    return scalar_cast<To>(v);  // to f32/f64 (rounds to nearest even), and int -> int
  }
}

template <typename To, typename From>
void cast_loop(const Tensor& x, Tensor& y) {
  const From* px = static_cast<const From*>(x.raw());
  To* py = static_cast<To*>(y.raw());
  parallel_for(x.numel(), 4, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) py[i] = convert<To, From>(px[i]);
  });
}

void cast_cpu(const Tensor& x, Tensor& y) {
  visit_dtype(x.dtype(), [&](auto from) {
    visit_dtype(y.dtype(), [&](auto to) { cast_loop<decltype(to), decltype(from)>(x, y); });
  });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(cast_kernel, kCpu, cast_cpu);

}  // namespace realmt::ops
