// CPU bias + activation + dropout. Rows over threads, one vectorised pass per row (dropout flags
// from the shared Philox mapping). The backward pass makes dy and the bias gradient's block
// partials in one pass (see backward_rows).
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fast_math.h"
#include "core/parallel.h"
#include "ops/bias_activation.h"
#include "ops/dropout_mask_cpu.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kGeluSigmoidScale = 1.702;

template <typename T>
T exp_t(T x) {
  if constexpr (std::is_same_v<T, float>)
    return fast_exp(x);
  else
    return std::exp(x);
}

template <typename T>
T act(Activation a, T x) {
  switch (a) {
    case Activation::kRelu: return x > T(0) ? x : T(0);
    case Activation::kGelu: return T(0.5) * x * (T(1) + std::erf(x * T(kInvSqrt2)));
    case Activation::kSwish: return x / (T(1) + exp_t<T>(-x));
    case Activation::kGeluSigmoid: return x / (T(1) + exp_t<T>(-T(kGeluSigmoidScale) * x));
  }
  return x;
}

// d act / d a (relu: [a > 0]; gelu: Phi(a) + a phi(a); swish: s + a s (1 - s), s = sigmoid(a);
// gelu-sigmoid: s + 1.702 a s (1 - s), s = sigmoid(1.702 a)).
template <typename T>
T act_grad(Activation a, T x) {
  switch (a) {
    case Activation::kRelu: return x > T(0) ? T(1) : T(0);
    case Activation::kGelu:
      return T(0.5) * (T(1) + std::erf(x * T(kInvSqrt2))) +
             x * T(kInvSqrt2Pi) * exp_t<T>(T(-0.5) * x * x);
    case Activation::kSwish: {
      const T s = T(1) / (T(1) + exp_t<T>(-x));
      return s + x * s * (T(1) - s);
    }
    case Activation::kGeluSigmoid: {
      const T s = T(1) / (T(1) + exp_t<T>(-T(kGeluSigmoidScale) * x));
      return s + T(kGeluSigmoidScale) * x * s * (T(1) - s);
    }
  }
  return T(1);
}

template <typename T, Activation kAct>
void forward_rows(const Tensor& y, const Tensor& bias, const BiasActivationOptions& o, Tensor& h) {
  const int64_t f = y.dim(-1), rows = y.numel() / f;
  const T* py = y.data<T>();
  const T* pb = bias.defined() ? bias.data<T>() : nullptr;
  T* ph = h.data<T>();
  const bool drop = o.dropout > 0;
  const uint32_t threshold = dropout_threshold(o.dropout);
  const T keep_scale = static_cast<T>(1.0 / (1.0 - o.dropout));
  parallel_for(rows, kAct == Activation::kRelu ? 4 * f : 24 * f, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<uint8_t> keep_buf;
    keep_buf.resize(f);
    uint8_t* keep = keep_buf.data();
    for (int64_t r = lo; r < hi; ++r) {
      const T* yr = py + r * f;
      T* hr = ph + r * f;
      if (drop)
        dropout_keep_flags(o.seed, o.offset + static_cast<uint64_t>(r * f), f, threshold, keep);
#pragma omp simd
      for (int64_t j = 0; j < f; ++j) {
        const T v = act<T>(kAct, yr[j] + (pb ? pb[j] : T(0)));
        hr[j] = drop ? (keep[j] ? v * keep_scale : T(0)) : v;
      }
    }
  });
}

// Rows in blocks of kBlock; each block writes dy for its rows and its partial column sums of dy
// to its own row of a scratch tensor; the partials are then added in block order.
constexpr int64_t kBlock = 32;

template <typename T, Activation kAct>
void backward_rows(const Tensor& dh, const Tensor& h, const Tensor& y, const Tensor& bias,
                   const BiasActivationOptions& o, BiasActivationGrads& out) {
  const int64_t f = y.dim(-1), rows = y.numel() / f;
  const int64_t blocks = (rows + kBlock - 1) / kBlock;
  const T* pdh = dh.data<T>();
  const T* ph = kAct == Activation::kRelu ? h.data<T>() : nullptr;
  const T* py = y.data<T>();
  const T* pb = bias.defined() ? bias.data<T>() : nullptr;
  T* pdy = out.dy.data<T>();
  const bool drop = o.dropout > 0;
  const uint32_t threshold = dropout_threshold(o.dropout);
  const T keep_scale = static_cast<T>(1.0 / (1.0 - o.dropout));
  const bool sums = out.dbias.defined();
  Tensor partial = sums ? Tensor::empty({blocks, f}, y.dtype(), y.device()) : Tensor();
  T* pp = sums ? partial.data<T>() : nullptr;
  parallel_for(blocks, kBlock * (kAct == Activation::kRelu ? 4 * f : 30 * f),
               [&](int64_t lo, int64_t hi) {
                 thread_local std::vector<uint8_t> keep_buf;
                 keep_buf.resize(f);
                 uint8_t* keep = keep_buf.data();
                 for (int64_t blk = lo; blk < hi; ++blk) {
                   T* sb = pp ? pp + blk * f : nullptr;
                   if (sb) std::fill(sb, sb + f, T(0));
                   const int64_t r_end = std::min(rows, (blk + 1) * kBlock);
                   for (int64_t r = blk * kBlock; r < r_end; ++r) {
                     const T* g = pdh + r * f;
                     T* d = pdy + r * f;
                     if constexpr (kAct == Activation::kRelu) {
                       const T* hr = ph + r * f;
                       const T s = drop ? keep_scale : T(1);
#pragma omp simd
                       for (int64_t j = 0; j < f; ++j) d[j] = hr[j] > T(0) ? g[j] * s : T(0);
                     } else {
                       const T* yr = py + r * f;
                       if (drop)
                         dropout_keep_flags(o.seed, o.offset + static_cast<uint64_t>(r * f), f,
                                            threshold, keep);
#pragma omp simd
                       for (int64_t j = 0; j < f; ++j) {
                         const T gj = drop ? (keep[j] ? g[j] * keep_scale : T(0)) : g[j];
                         d[j] = gj * act_grad<T>(kAct, yr[j] + (pb ? pb[j] : T(0)));
                       }
                     }
                     if (sb)
#pragma omp simd
                       for (int64_t j = 0; j < f; ++j) sb[j] += d[j];
                   }
                 }
               });
  if (!sums) return;
  T* db = out.dbias.data<T>();
  parallel_for(f, 2 * blocks, [&](int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; ++j) {
      T acc = 0;
      for (int64_t blk = 0; blk < blocks; ++blk) acc += pp[blk * f + j];
      db[j] = acc;
    }
  });
}

template <template <typename, Activation> class Body, typename T, typename... Args>
void by_activation(Activation a, Args&&... args) {
  switch (a) {
    case Activation::kRelu: Body<T, Activation::kRelu>::run(args...); break;
    case Activation::kGelu: Body<T, Activation::kGelu>::run(args...); break;
    case Activation::kSwish: Body<T, Activation::kSwish>::run(args...); break;
    case Activation::kGeluSigmoid: Body<T, Activation::kGeluSigmoid>::run(args...); break;
  }
}
template <typename T, Activation A>
struct Fwd {
  static void run(const Tensor& y, const Tensor& b, const BiasActivationOptions& o, Tensor& h) {
    forward_rows<T, A>(y, b, o, h);
  }
};
template <typename T, Activation A>
struct Bwd {
  static void run(const Tensor& dh, const Tensor& h, const Tensor& y, const Tensor& b,
                  const BiasActivationOptions& o, BiasActivationGrads& g) {
    backward_rows<T, A>(dh, h, y, b, o, g);
  }
};

void bias_activation_cpu(const Tensor& y, const Tensor& bias, const BiasActivationOptions& o,
                         Tensor& h) {
  visit_float(y.dtype(), "bias_activation",
              [&](auto tag) { by_activation<Fwd, decltype(tag)>(o.activation, y, bias, o, h); });
}
void bias_activation_backward_cpu(const Tensor& dh, const Tensor& h, const Tensor& y,
                                  const Tensor& bias, const BiasActivationOptions& o,
                                  BiasActivationGrads& g) {
  visit_float(y.dtype(), "bias_activation_backward", [&](auto tag) {
    by_activation<Bwd, decltype(tag)>(o.activation, dh, h, y, bias, o, g);
  });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(bias_activation_kernel, kCpu, bias_activation_cpu);
REALMT_REGISTER_KERNEL(bias_activation_backward_kernel, kCpu, bias_activation_backward_cpu);

}  // namespace realmt::ops
