// Element types in CUDA kernels. realmt::Half and realmt::BFloat16 store the same 16 bits as
// __half and __nv_bfloat16, so a tensor's memory is reinterpreted, never converted.
// Kernels load every floating type into its compute type (float for f16/bf16/f32, double
// for f64), compute there, and round once when storing.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "core/dtype.h"
#include "core/tensor.h"

namespace realmt::cuda {

static_assert(sizeof(__half) == sizeof(Half) && sizeof(__nv_bfloat16) == sizeof(BFloat16));

// The arithmetic type of an element type.
template <typename T>
struct ComputeOf {
  using type = float;
};
template <>
struct ComputeOf<double> {
  using type = double;
};
template <typename T>
using compute_t = typename ComputeOf<T>::type;

template <typename T>
__device__ __forceinline__ compute_t<T> load(const T& v) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(v);
  else
    return static_cast<compute_t<T>>(v);
}

// Round-to-nearest-even, as realmt::Half / BFloat16 do on the host.
template <typename T>
__device__ __forceinline__ T store(compute_t<T> v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(v);
  else
    return static_cast<T>(v);
}

// The tensor's elements as the device type T.
template <typename T>
T* device_ptr(const Tensor& t) {
  return static_cast<T*>(t.raw());
}

// Calls fn(T{}) with T the device type of a floating dtype (float, double, __half,
// __nv_bfloat16); any other dtype is an error naming op.
template <typename Fn>
decltype(auto) visit_float(DType t, const char* op, Fn&& fn) {
  switch (t) {
    case DType::kF32: return fn(float{});
    case DType::kF64: return fn(double{});
    case DType::kF16: return fn(__half{});
    case DType::kBF16: return fn(__nv_bfloat16{});
    default: throw_unsupported_dtype(op, t);
  }
}

// Calls fn(T{}) for every dtype, with the device types for f16/bf16.
template <typename Fn>
decltype(auto) visit_all(DType t, Fn&& fn) {
  switch (t) {
    case DType::kF32: return fn(float{});
    case DType::kF64: return fn(double{});
    case DType::kF16: return fn(__half{});
    case DType::kBF16: return fn(__nv_bfloat16{});
    case DType::kI32: return fn(int32_t{});
    case DType::kU8: return fn(uint8_t{});
  }
  throw_unsupported_dtype("cuda kernel", t);
}

}  // namespace realmt::cuda
