// Math functions for kernels, overloaded on the compute type (float for f32/f16/bf16, double
// for f64), so a kernel written once for compute_t<T> picks expf or exp. f32 uses CUDA's
// expf/logf/erff (within 2 ulp, like the CPU's fast_exp / fast_log).
#pragma once

#include <cuda_runtime.h>

namespace realmt::cuda {

__device__ __forceinline__ float exp_c(float x) { return expf(x); }
__device__ __forceinline__ double exp_c(double x) { return ::exp(x); }
__device__ __forceinline__ float log_c(float x) { return logf(x); }
__device__ __forceinline__ double log_c(double x) { return ::log(x); }
__device__ __forceinline__ float erf_c(float x) { return erff(x); }
__device__ __forceinline__ double erf_c(double x) { return ::erf(x); }

}  // namespace realmt::cuda
