// softmax / log_softmax over the last axis of x + mask (numerically safe: the row maximum is
// subtracted before exponentiating).
//   x [..., N]; mask (optional, additive) [..., N] broadcastable to x over the leading axes,
//   same dtype as x. A -inf mask entry gives exactly 0 probability (log: -inf). A row whose
//   entries are all -inf gives all zeros (log: all -inf) instead of NaN, so fully padded
//   query rows stay finite.
// Backward from the output y alone:
//   softmax:     dx = y * (dy - sum_j dy_j y_j)
//   log_softmax: dx = dy - exp(y) * sum_j dy_j
// dtypes: f32/f64 on the CPU. Not in place.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor softmax(const Tensor& x, const Tensor& mask = {});
Tensor log_softmax(const Tensor& x, const Tensor& mask = {});
Tensor softmax_backward(const Tensor& dy, const Tensor& y);
Tensor log_softmax_backward(const Tensor& dy, const Tensor& y);

// Row r of x (r over the leading axes) uses mask row mask_row(r).
struct RowBroadcast {
  int rank = 0;                             // leading axes of x
  std::array<int64_t, kMaxDims> dims{};     // x's leading extents
  std::array<int64_t, kMaxDims> strides{};  // mask row strides per leading axis (0: broadcast)
  int64_t rows = 0, cols = 0;
  int64_t mask_row(int64_t r) const {
    int64_t off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      off += (r % dims[d]) * strides[d];
      r /= dims[d];
    }
    return off;
  }
};
RowBroadcast plan_row_broadcast(const Shape& x, const Shape& mask);

using SoftmaxKernel = void(const Tensor& x, const Tensor& mask, const RowBroadcast& rb, Tensor& y);
using SoftmaxBackwardKernel = void(const Tensor& dy, const Tensor& y, Tensor& dx);
REALMT_KERNEL_SLOT(softmax_kernel, SoftmaxKernel);
REALMT_KERNEL_SLOT(log_softmax_kernel, SoftmaxKernel);
REALMT_KERNEL_SLOT(softmax_backward_kernel, SoftmaxBackwardKernel);
REALMT_KERNEL_SLOT(log_softmax_backward_kernel, SoftmaxBackwardKernel);

}  // namespace realmt::ops
