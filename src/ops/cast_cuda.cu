// CUDA cast: one templated elementwise kernel per (from, to) pair, converting exactly as the
// CPU kernel does (see the header): round to nearest even into f16/bf16, with f64 and i32
// first narrowed to f32 by round-to-odd so the result is rounded once; floating -> integer
// truncates, saturates and maps NaN to 0; i32 -> u8 keeps the low 8 bits.
#include <type_traits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "ops/cast.h"

namespace realmt::ops {
namespace {

template <typename T>
constexpr bool kHalfType = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <typename T>
constexpr bool kIntType = std::is_same_v<T, int32_t> || std::is_same_v<T, uint8_t>;

// d narrowed to f32 with round-to-odd (Boldo and Melquiond 2005): truncate, then set the last
// bit if anything was lost. __double2float_rz truncates toward zero (FLT_MAX for finite
// values beyond it, as the CPU's nextafter step gives).
__device__ __forceinline__ float round_to_odd(double d) {
  float f = __double2float_rz(d);
  if (d != d || static_cast<double>(f) == d) return f;
  return __uint_as_float(__float_as_uint(f) | 1u);
}

// A value of any element type as a double (exact for all six).
template <typename From>
__device__ __forceinline__ double as_double(From v) {
  if constexpr (kHalfType<From>)
    return static_cast<double>(cuda::load(v));
  else
    return static_cast<double>(v);
}

template <typename To, typename From>
__device__ __forceinline__ To convert(From v) {
  if constexpr (kHalfType<To>) {
    float f;
    if constexpr (std::is_same_v<From, double> || std::is_same_v<From, int32_t>)
      f = round_to_odd(static_cast<double>(v));
    else
      f = static_cast<float>(as_double(v));  // f32, f16, bf16 and u8 are exact in f32
    return cuda::store<To>(f);
  } else if constexpr (kIntType<To> && !kIntType<From>) {
    const double d = as_double(v);
    if (d != d) return To(0);
    const double t = trunc(d);
    const double lo = std::is_same_v<To, int32_t> ? -2147483648.0 : 0.0;
    const double hi = std::is_same_v<To, int32_t> ? 2147483647.0 : 255.0;
    return static_cast<To>(t < lo ? lo : (t > hi ? hi : t));
  } else if constexpr (kHalfType<From>) {
    return static_cast<To>(cuda::load(v));  // f16/bf16 -> f32/f64 (exact)
  } else {
    return static_cast<To>(v);  // to f32/f64 (round to nearest even), and int -> int
  }
}

template <typename To, typename From>
__global__ void cast_elements(const From* x, To* y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = convert<To, From>(x[i]);
}

void cast_cuda(const Tensor& x, Tensor& y) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long n = x.numel();
  cuda::visit_all(x.dtype(), [&](auto from) {
    cuda::visit_all(y.dtype(), [&](auto to) {
      using From = decltype(from);
      using To = decltype(to);
      cast_elements<To, From><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(
          cuda::device_ptr<From>(x), cuda::device_ptr<To>(y), n);
      REALMT_CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(cast_kernel, kCuda, cast_cuda);

}  // namespace realmt::ops
