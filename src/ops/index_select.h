// index_select: gathers slices of x along one axis.
//   x [A..., N, B...], indices i32 [K] with 0 <= indices[k] < N -> y [A..., K, B...],
//   y[a, k, b] = x[a, indices[k], b]. Indices may repeat and come in any order. Beam search
//   reorders its beams with it: x [B*K, ...] along axis 0.
//   An index out of range is an error naming its position and value. Indices on a GPU are
//   copied to the host for that check (K values).
// index_select_backward: dx = zeros(x_shape); dx[a, indices[k], b] += dy[a, k, b] in order of
//   k, so repeated indices sum deterministically.
// dtypes: forward all six (the kernel moves bytes); backward f32/f64 on the CPU. Not in place.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor index_select(const Tensor& x, int axis, const Tensor& indices);
Tensor index_select_backward(const Tensor& dy, const Shape& x_shape, int axis,
                             const Tensor& indices);

// x viewed as [outer, n, inner], y as [outer, k, inner].
struct IndexSelectPlan {
  int64_t outer = 0;  // product of the extents before the axis
  int64_t inner = 0;  // product of the extents after the axis
  int64_t n = 0;      // N, extent of the axis in x
  int64_t k = 0;      // K, number of indices
};
// y[o, j, i] = x[o, indices[j], i] (indices already checked).
using IndexSelectKernel = void(const Tensor& x, const Tensor& indices, const IndexSelectPlan& plan,
                               Tensor& y);
// dx [outer, n, inner] = 0, then dx[o, indices[j], i] += dy[o, j, i] for j = 0, 1, ... in order.
using IndexSelectBackwardKernel = void(const Tensor& dy, const Tensor& indices,
                                       const IndexSelectPlan& plan, Tensor& dx);
REALMT_KERNEL_SLOT(index_select_kernel, IndexSelectKernel);
REALMT_KERNEL_SLOT(index_select_backward_kernel, IndexSelectBackwardKernel);

}  // namespace realmt::ops
