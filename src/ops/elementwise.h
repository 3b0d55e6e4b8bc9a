// Binary elementwise ops with numpy broadcasting: out = a (op) b.
//   a [...], b [...] broadcastable -> out [broadcast shape]
// dtypes: a and b equal; f32/f64 on the CPU. Not in place, except add_ (dst += src).
#pragma once

#include <array>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
// dst += src, src broadcast to dst's shape (gradient accumulation).
void add_(Tensor& dst, const Tensor& src);

// The iteration an elementwise kernel runs, after collapsing axes: `rank` axes of `dims`
// (the last is the inner loop) with element strides of a and b (0 along broadcast axes; out
// is contiguous).
struct BroadcastPlan {
  int rank = 0;
  std::array<int64_t, kMaxDims> dims{};
  std::array<int64_t, kMaxDims> stride_a{};
  std::array<int64_t, kMaxDims> stride_b{};
  int64_t numel = 0;
};
BroadcastPlan plan_broadcast(const Shape& a, const Shape& b, const Shape& out);

using BinaryKernel = void(const Tensor& a, const Tensor& b, Tensor& out, const BroadcastPlan& plan);
REALMT_KERNEL_SLOT(add_kernel, BinaryKernel);
REALMT_KERNEL_SLOT(sub_kernel, BinaryKernel);
REALMT_KERNEL_SLOT(mul_kernel, BinaryKernel);
REALMT_KERNEL_SLOT(div_kernel, BinaryKernel);

}  // namespace realmt::ops
