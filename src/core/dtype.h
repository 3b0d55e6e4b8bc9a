// Element types. f64 exists for finite-difference gradient checks on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>

#include "core/half.h"

namespace realmt {

enum class DType : uint8_t { kF32, kF64, kF16, kBF16, kI32, kU8, kI8 };
inline constexpr int kNumDTypes = 7;

size_t dtype_size(DType t);
[[noreturn]] void throw_unsupported_dtype(const char* op, DType t);
const char* dtype_name(DType t);  // "f32", "f64", "f16", "bf16", "i32", "u8", "i8"
DType parse_dtype(const std::string& name);
bool is_floating(DType t);
std::ostream& operator<<(std::ostream& os, DType t);

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kF32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kF64;
};
template <>
struct DTypeOf<Half> {
  static constexpr DType value = DType::kF16;
};
template <>
struct DTypeOf<BFloat16> {
  static constexpr DType value = DType::kBF16;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kI32;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kU8;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kI8;
};  // quantized weights
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

// Converts between element types; Half and BFloat16 go through float.
template <typename To, typename From>
To scalar_cast(From v) {
  if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return scalar_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Calls fn(T{}) with T the C++ type of t (all seven types).
template <typename Fn>
decltype(auto) visit_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::kF32: return fn(float{});
    case DType::kF64: return fn(double{});
    case DType::kF16: return fn(Half{});
    case DType::kBF16: return fn(BFloat16{});
    case DType::kI32: return fn(int32_t{});
    case DType::kU8: return fn(uint8_t{});
    case DType::kI8: return fn(int8_t{});
  }
  return fn(float{});
}

// Calls fn(T{}) for the CPU compute types f32 and f64; other dtypes are an error naming op.
template <typename Fn>
decltype(auto) visit_float(DType t, const char* op, Fn&& fn) {
  if (t == DType::kF64) return fn(double{});
  if (t != DType::kF32) throw_unsupported_dtype(op, t);
  return fn(float{});
}

}  // namespace realmt
