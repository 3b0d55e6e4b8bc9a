// CPU unary kernels: one flat, vectorised loop split over threads. f32 uses the
// vectorisable fast_exp; f64 uses std:: functions (the gradient-check reference).
#include <cmath>

#include "core/fast_math.h"
#include "core/parallel.h"
#include "ops/unary.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
T exp_t(T x) {
  if constexpr (std::is_same_v<T, float>)
    return fast_exp(x);
  else
    return std::exp(x);
}
template <typename T>
T sigmoid(T x) {
  return T(1) / (T(1) + exp_t<T>(-x));
}
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

struct ReluF {
  template <typename T>
  static T f(T x, T) {
    return x > T(0) ? x : T(0);
  }
};
struct ExpF {
  template <typename T>
  static T f(T x, T) {
    return exp_t<T>(x);
  }
};
struct LogF {
  template <typename T>
  static T f(T x, T) {
    return std::log(x);
  }
};
struct SqrtF {
  template <typename T>
  static T f(T x, T) {
    return std::sqrt(x);
  }
};
struct ScaleF {
  template <typename T>
  static T f(T x, T s) {
    return x * s;
  }
};
struct GeluF {
  template <typename T>
  static T f(T x, T) {
    return T(0.5) * x * (T(1) + std::erf(x * T(kInvSqrt2)));
  }
};
struct SwishF {
  template <typename T>
  static T f(T x, T) {
    return x * sigmoid<T>(x);
  }
};

// d/dx relu = [x > 0]; d/dx gelu = Phi(x) + x phi(x); d/dx swish = s + x s (1 - s), s = sigmoid(x).
struct ReluB {
  template <typename T>
  static T f(T dy, T x) {
    return x > T(0) ? dy : T(0);
  }
};
struct GeluB {
  template <typename T>
  static T f(T dy, T x) {
    const T cdf = T(0.5) * (T(1) + std::erf(x * T(kInvSqrt2)));
    const T pdf = T(kInvSqrt2Pi) * exp_t<T>(T(-0.5) * x * x);
    return dy * (cdf + x * pdf);
  }
};
struct SwishB {
  template <typename T>
  static T f(T dy, T x) {
    const T s = sigmoid<T>(x);
    return dy * (s + x * s * (T(1) - s));
  }
};

template <typename F>
void unary_cpu(const Tensor& x, Tensor& y, double param) {
  visit_float(x.dtype(), "unary op", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    const T p = static_cast<T>(param);
    parallel_for(x.numel(), 8, [&](int64_t lo, int64_t hi) {
#pragma omp simd
      for (int64_t i = lo; i < hi; ++i) py[i] = F::f(px[i], p);
    });
  });
}

template <typename F>
void unary_backward_cpu(const Tensor& dy, const Tensor& x, Tensor& dx) {
  visit_float(x.dtype(), "unary backward", [&](auto tag) {
    using T = decltype(tag);
    const T* pdy = dy.data<T>();
    const T* px = x.data<T>();
    T* pdx = dx.data<T>();
    parallel_for(x.numel(), 16, [&](int64_t lo, int64_t hi) {
#pragma omp simd
      for (int64_t i = lo; i < hi; ++i) pdx[i] = F::f(pdy[i], px[i]);
    });
  });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(relu_kernel, kCpu, unary_cpu<ReluF>);
REALMT_REGISTER_KERNEL(gelu_kernel, kCpu, unary_cpu<GeluF>);
REALMT_REGISTER_KERNEL(swish_kernel, kCpu, unary_cpu<SwishF>);
REALMT_REGISTER_KERNEL(exp_kernel, kCpu, unary_cpu<ExpF>);
REALMT_REGISTER_KERNEL(log_kernel, kCpu, unary_cpu<LogF>);
REALMT_REGISTER_KERNEL(sqrt_kernel, kCpu, unary_cpu<SqrtF>);
REALMT_REGISTER_KERNEL(scale_kernel, kCpu, unary_cpu<ScaleF>);
REALMT_REGISTER_KERNEL(relu_backward_kernel, kCpu, unary_backward_cpu<ReluB>);
REALMT_REGISTER_KERNEL(gelu_backward_kernel, kCpu, unary_backward_cpu<GeluB>);
REALMT_REGISTER_KERNEL(swish_backward_kernel, kCpu, unary_backward_cpu<SwishB>);

}  // namespace realmt::ops
