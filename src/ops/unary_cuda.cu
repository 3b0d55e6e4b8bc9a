// CUDA unary kernels: one flat grid-stride loop. f16/bf16 compute in float and round once;
// f32 uses CUDA's expf/erff/logf (within 2 ulp, like the CPU's fast_exp); f64 uses the
// double functions.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "ops/unary.h"

namespace realmt::ops {
namespace {

// Overloads pick the float or double device function for compute type C.
__device__ __forceinline__ float exp_c(float x) { return expf(x); }
__device__ __forceinline__ double exp_c(double x) { return ::exp(x); }
__device__ __forceinline__ float log_c(float x) { return logf(x); }
__device__ __forceinline__ double log_c(double x) { return ::log(x); }
__device__ __forceinline__ float sqrt_c(float x) { return sqrtf(x); }
__device__ __forceinline__ double sqrt_c(double x) { return ::sqrt(x); }
__device__ __forceinline__ float erf_c(float x) { return erff(x); }
__device__ __forceinline__ double erf_c(double x) { return ::erf(x); }
template <typename C>
__device__ __forceinline__ C sigmoid(C x) {
  return C(1) / (C(1) + exp_c(-x));
}

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

struct ReluF {
  template <typename C>
  __device__ static C f(C x, C) {
    return x > C(0) ? x : C(0);
  }
};
struct ExpF {
  template <typename C>
  __device__ static C f(C x, C) {
    return exp_c(x);
  }
};
struct LogF {
  template <typename C>
  __device__ static C f(C x, C) {
    return log_c(x);
  }
};
struct SqrtF {
  template <typename C>
  __device__ static C f(C x, C) {
    return sqrt_c(x);
  }
};
struct ScaleF {
  template <typename C>
  __device__ static C f(C x, C s) {
    return x * s;
  }
};
struct GeluF {
  template <typename C>
  __device__ static C f(C x, C) {
    return C(0.5) * x * (C(1) + erf_c(x * C(kInvSqrt2)));
  }
};
struct SwishF {
  template <typename C>
  __device__ static C f(C x, C) {
    return x * sigmoid(x);
  }
};

// d/dx relu = [x > 0]; d/dx gelu = Phi(x) + x phi(x); d/dx swish = s + x s (1 - s), s = sigmoid(x).
struct ReluB {
  template <typename C>
  __device__ static C f(C dy, C x) {
    return x > C(0) ? dy : C(0);
  }
};
struct GeluB {
  template <typename C>
  __device__ static C f(C dy, C x) {
    const C cdf = C(0.5) * (C(1) + erf_c(x * C(kInvSqrt2)));
    const C pdf = C(kInvSqrt2Pi) * exp_c(C(-0.5) * x * x);
    return dy * (cdf + x * pdf);
  }
};
struct SwishB {
  template <typename C>
  __device__ static C f(C dy, C x) {
    const C s = sigmoid(x);
    return dy * (s + x * s * (C(1) - s));
  }
};

template <typename F, typename T>
__global__ void unary_kernel(const T* x, T* y, long long n, cuda::compute_t<T> param) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = cuda::store<T>(F::f(cuda::load(x[i]), param));
}

template <typename F, typename T>
__global__ void backward_kernel(const T* dy, const T* x, T* dx, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    dx[i] = cuda::store<T>(F::f(cuda::load(dy[i]), cuda::load(x[i])));
}

template <typename F>
void unary_cuda(const Tensor& x, Tensor& y, double param) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long n = x.numel();
  cuda::visit_float(x.dtype(), "unary op", [&](auto tag) {
    using T = decltype(tag);
    unary_kernel<F, T><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(
        cuda::device_ptr<T>(x), cuda::device_ptr<T>(y), n, static_cast<cuda::compute_t<T>>(param));
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

template <typename F>
void unary_backward_cuda(const Tensor& dy, const Tensor& x, Tensor& dx) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long n = x.numel();
  cuda::visit_float(x.dtype(), "unary backward", [&](auto tag) {
    using T = decltype(tag);
    backward_kernel<F, T><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(
        cuda::device_ptr<T>(dy), cuda::device_ptr<T>(x), cuda::device_ptr<T>(dx), n);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(relu_kernel, kCuda, unary_cuda<ReluF>);
REALMT_REGISTER_KERNEL(gelu_kernel, kCuda, unary_cuda<GeluF>);
REALMT_REGISTER_KERNEL(swish_kernel, kCuda, unary_cuda<SwishF>);
REALMT_REGISTER_KERNEL(exp_kernel, kCuda, unary_cuda<ExpF>);
REALMT_REGISTER_KERNEL(log_kernel, kCuda, unary_cuda<LogF>);
REALMT_REGISTER_KERNEL(sqrt_kernel, kCuda, unary_cuda<SqrtF>);
REALMT_REGISTER_KERNEL(scale_kernel, kCuda, unary_cuda<ScaleF>);
REALMT_REGISTER_KERNEL(relu_backward_kernel, kCuda, unary_backward_cuda<ReluB>);
REALMT_REGISTER_KERNEL(gelu_backward_kernel, kCuda, unary_backward_cuda<GeluB>);
REALMT_REGISTER_KERNEL(swish_backward_kernel, kCuda, unary_backward_cuda<SwishB>);

}  // namespace realmt::ops
