// slice: y = x[..., begin:end, ...] along one axis, as a contiguous copy.
//   x [A..., N, B...], 0 <= begin <= end <= N (axis may be negative) -> y [A..., end - begin, B...]
//   An empty range (begin == end) gives an empty tensor; a range outside [0, N] is an error
//   naming the range and the shape.
// slice_backward: dx = zeros(x_shape) with dx[..., begin:end, ...] = dy (the gradient of slice).
//   dy [A..., M, B...] -> dx x_shape [A..., N, B...], begin + M <= N.
// dtypes: all six (the kernels move bytes). Not in place.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor slice(const Tensor& x, int axis, int64_t begin, int64_t end);
Tensor slice_backward(const Tensor& dy, const Shape& x_shape, int axis, int64_t begin);

// Both tensors viewed as [outer, extent, inner]: the full one (`full`, extent full_extent) and
// the sliced one (extent part_extent, rows begin .. begin + part_extent of the full one).
struct SlicePlan {
  int64_t outer = 0;        // product of the extents before the axis
  int64_t inner = 0;        // product of the extents after the axis
  int64_t full_extent = 0;  // N
  int64_t part_extent = 0;  // end - begin
  int64_t begin = 0;
};

// y (part) = x (full) [:, begin:begin+part_extent, :]
using SliceKernel = void(const Tensor& x, const SlicePlan& plan, Tensor& y);
// dx (full) = dy (part) at rows [begin, begin + part_extent), zeros elsewhere (the kernel
// writes every element of dx).
using SliceBackwardKernel = void(const Tensor& dy, const SlicePlan& plan, Tensor& dx);
REALMT_KERNEL_SLOT(slice_kernel, SliceKernel);
REALMT_KERNEL_SLOT(slice_backward_kernel, SliceBackwardKernel);

}  // namespace realmt::ops
