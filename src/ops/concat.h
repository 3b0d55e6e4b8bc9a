// concat: y = the inputs joined along one axis, as a contiguous copy.
//   xs[k] [A..., N_k, B...] (same rank, dtype, device; extents equal except along the axis,
//   which may be negative and counts on the first input) -> y [A..., sum_k N_k, B...].
//   Inputs with N_k = 0 are allowed and contribute nothing; at least one input is needed.
// dtypes: all six (the kernel moves bytes). Not in place.
#pragma once

#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor concat(const std::vector<Tensor>& xs, int axis);

// One input x [outer, x_extent, inner] copied into y [outer, y_extent, inner] at rows
// [offset, offset + x_extent) of the axis. concat calls the kernel once per non-empty input.
struct ConcatPlan {
  int64_t outer = 0;     // product of the extents before the axis
  int64_t inner = 0;     // product of the extents after the axis
  int64_t x_extent = 0;  // N_k
  int64_t y_extent = 0;  // sum_k N_k
  int64_t offset = 0;    // N_0 + ... + N_{k-1}
};
using ConcatKernel = void(const Tensor& x, const ConcatPlan& plan, Tensor& y);
REALMT_KERNEL_SLOT(concat_kernel, ConcatKernel);

}  // namespace realmt::ops
