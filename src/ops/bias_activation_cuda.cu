// CUDA bias + activation + dropout: one flat grid-stride loop over the Philox blocks of the
// dropout stream (4 consecutive elements a thread, the keep bits computed once per block, as
// ops/dropout_cuda.cu), so the mask equals the CPU's. f16/bf16 compute in float and round once.
// relu's backward reads the forward output instead (ops/bias_activation.h): no mask redrawn.
// The bias gradient: the deterministic column sums of backend/cuda/column_reduce.cuh over dy.
#include "backend/cuda/column_reduce.cuh"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/device_math.cuh"
#include "backend/cuda/dropout_stream.cuh"
#include "ops/bias_activation.h"
#include "ops/dropout.h"

namespace realmt::ops {
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kGeluSigmoidScale = 1.702;

template <Activation kAct, typename C>
__device__ __forceinline__ C act(C x) {
  if constexpr (kAct == Activation::kRelu)
    return x > C(0) ? x : C(0);
  else if constexpr (kAct == Activation::kGelu)
    return C(0.5) * x * (C(1) + cuda::erf_c(x * C(kInvSqrt2)));
  else if constexpr (kAct == Activation::kGeluSigmoid)
    return x / (C(1) + cuda::exp_c(-C(kGeluSigmoidScale) * x));
  else
    return x / (C(1) + cuda::exp_c(-x));
}

// d act / d a (relu: [a > 0]; gelu: Phi(a) + a phi(a); swish: s + a s (1 - s), s = sigmoid(a);
// gelu-sigmoid: s + 1.702 a s (1 - s), s = sigmoid(1.702 a)).
template <Activation kAct, typename C>
__device__ __forceinline__ C act_grad(C x) {
  if constexpr (kAct == Activation::kRelu) {
    return x > C(0) ? C(1) : C(0);
  } else if constexpr (kAct == Activation::kGelu) {
    return C(0.5) * (C(1) + cuda::erf_c(x * C(kInvSqrt2))) +
           x * C(kInvSqrt2Pi) * cuda::exp_c(C(-0.5) * x * x);
  } else if constexpr (kAct == Activation::kGeluSigmoid) {
    const C s = C(1) / (C(1) + cuda::exp_c(-C(kGeluSigmoidScale) * x));
    return s + C(kGeluSigmoidScale) * x * s * (C(1) - s);
  } else {
    const C s = C(1) / (C(1) + cuda::exp_c(-x));
    return s + x * s * (C(1) - s);
  }
}

// h = dropout(act(y + bias)) over the n elements of [rows, f].
template <typename T, Activation kAct>
__global__ void forward_blocks(const T* y, const T* bias, long long n, long long f,
                               cuda::DropoutStream s, cuda::compute_t<T> keep_scale, T* h) {
  using C = cuda::compute_t<T>;
  const unsigned long long blocks = cuda::dropout_blocks(s, 0, n);
  for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; b < blocks;
       b += (unsigned long long)gridDim.x * blockDim.x) {
    cuda::dropout_block(s, 0, n, b, [&](unsigned long long e, bool keep) {
      const C a = cuda::load(y[e]) + (bias ? cuda::load(bias[e % f]) : C(0));
      const C v = act<kAct>(a);
      h[e] = cuda::store<T>(s.active ? (keep ? v * keep_scale : C(0)) : v);
    });
  }
}

// relu: dy = h > 0 ? dh * s : 0 with s = 1 / (1 - p) (1 without dropout): a kept positive a
// gives h > 0, every other element h = 0 and da = 0 (ops/bias_activation.h).
template <typename T>
__global__ void relu_backward_flat(const T* dh, const T* h, long long n, cuda::compute_t<T> s,
                                   T* dy) {
  using C = cuda::compute_t<T>;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n;
       e += (long long)gridDim.x * blockDim.x)
    dy[e] = cuda::store<T>(cuda::load(h[e]) > C(0) ? cuda::load(dh[e]) * s : C(0));
}

// gelu, swish: dy = dropout_backward(dh) * act'(y + bias).
template <typename T, Activation kAct>
__global__ void backward_blocks(const T* dh, const T* y, const T* bias, long long n, long long f,
                                cuda::DropoutStream s, cuda::compute_t<T> keep_scale, T* dy) {
  using C = cuda::compute_t<T>;
  const unsigned long long blocks = cuda::dropout_blocks(s, 0, n);
  for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; b < blocks;
       b += (unsigned long long)gridDim.x * blockDim.x) {
    cuda::dropout_block(s, 0, n, b, [&](unsigned long long e, bool keep) {
      const C g = cuda::load(dh[e]);
      const C gk = s.active ? (keep ? g * keep_scale : C(0)) : g;
      const C a = cuda::load(y[e]) + (bias ? cuda::load(bias[e % f]) : C(0));
      dy[e] = cuda::store<T>(gk * act_grad<kAct>(a));
    });
  }
}

// Adds dy[r, j] to column j's sum (the bias gradient).
template <typename T>
struct ColumnOf {
  const T* x;
  long long cols;
  __device__ void operator()(long long r, long long j, double (&acc)[1]) const {
    acc[0] += static_cast<double>(cuda::load(x[r * cols + j]));
  }
};

cuda::DropoutStream stream_of(const BiasActivationOptions& o) {
  return {o.seed, o.offset, dropout_threshold(o.dropout), o.dropout > 0};
}

// Calls fn(T{}, std::integral_constant<Activation, A>{}) for the dtype and activation.
template <typename Fn>
void visit(DType dt, Activation a, const char* op, Fn&& fn) {
  cuda::visit_float(dt, op, [&](auto tag) {
    switch (a) {
      case Activation::kRelu:
        fn(tag, std::integral_constant<Activation, Activation::kRelu>{});
        break;
      case Activation::kGelu:
        fn(tag, std::integral_constant<Activation, Activation::kGelu>{});
        break;
      case Activation::kSwish:
        fn(tag, std::integral_constant<Activation, Activation::kSwish>{});
        break;
      case Activation::kGeluSigmoid:
        fn(tag, std::integral_constant<Activation, Activation::kGeluSigmoid>{});
        break;
    }
  });
}

void bias_activation_cuda(const Tensor& y, const Tensor& bias, const BiasActivationOptions& o,
                          Tensor& h) {
  const int device = y.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long f = y.dim(-1), n = y.numel();
  const cuda::DropoutStream s = stream_of(o);
  const long long blocks = static_cast<long long>(cuda::dropout_blocks(s, 0, n));
  visit(y.dtype(), o.activation, "bias_activation", [&](auto tag, auto act_tag) {
    using T = decltype(tag);
    // 1 / (1 - p) in double, rounded once to the compute type (as ops::dropout).
    const auto keep_scale = static_cast<cuda::compute_t<T>>(1.0 / (1.0 - o.dropout));
    forward_blocks<T, decltype(act_tag)::value>
        <<<cuda::grid_for(blocks), cuda::kBlockSize, 0, stream>>>(
            cuda::device_ptr<T>(y), bias.defined() ? cuda::device_ptr<T>(bias) : nullptr, n, f, s,
            keep_scale, cuda::device_ptr<T>(h));
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

void bias_activation_backward_cuda(const Tensor& dh, const Tensor& h, const Tensor& y,
                                   const Tensor& bias, const BiasActivationOptions& o,
                                   BiasActivationGrads& g) {
  const int device = y.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long f = y.dim(-1), n = y.numel();
  const cuda::DropoutStream s = stream_of(o);
  const long long blocks = static_cast<long long>(cuda::dropout_blocks(s, 0, n));
  visit(y.dtype(), o.activation, "bias_activation_backward", [&](auto tag, auto act_tag) {
    using T = decltype(tag);
    using C = cuda::compute_t<T>;
    constexpr Activation kAct = decltype(act_tag)::value;
    const auto keep_scale = static_cast<C>(1.0 / (1.0 - o.dropout));
    if constexpr (kAct == Activation::kRelu) {
      relu_backward_flat<T><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(
          cuda::device_ptr<T>(dh), cuda::device_ptr<T>(h), n, s.active ? keep_scale : C(1),
          cuda::device_ptr<T>(g.dy));
    } else {
      backward_blocks<T, kAct><<<cuda::grid_for(blocks), cuda::kBlockSize, 0, stream>>>(
          cuda::device_ptr<T>(dh), cuda::device_ptr<T>(y),
          bias.defined() ? cuda::device_ptr<T>(bias) : nullptr, n, f, s, keep_scale,
          cuda::device_ptr<T>(g.dy));
    }
    REALMT_CUDA_CHECK_LAUNCH();
    if (g.dbias.defined())  // written whole (it arrives uninitialised)
      cuda::column_sums<T, 1>(ColumnOf<T>{cuda::device_ptr<T>(g.dy), f}, n / f, f,
                              cuda::ColumnOutputs<T, 1>{{cuda::device_ptr<T>(g.dbias)}, false},
                              y.device(), stream);
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(bias_activation_kernel, kCuda, bias_activation_cuda);
REALMT_REGISTER_KERNEL(bias_activation_backward_kernel, kCuda, bias_activation_backward_cuda);

}  // namespace realmt::ops
