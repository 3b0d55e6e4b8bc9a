// Reductions over one axis: x [A..., N, B...] -> [A..., B...] (keepdim: [A..., 1, B...]).
//   sum, mean, max (max_with_indices also gives the i32 position of the first maximum).
//   sum_all: the sum of every element, shape [] (rank 0).
// dtypes: f32/f64 on the CPU; sums accumulate in the element type (f64 for f64). Not in place.
#pragma once

#include <utility>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct ReduceOptions {
  bool keepdim = false;
};

Tensor sum(const Tensor& x, int axis, const ReduceOptions& options = {});
Tensor mean(const Tensor& x, int axis, const ReduceOptions& options = {});
Tensor max(const Tensor& x, int axis, const ReduceOptions& options = {});
std::pair<Tensor, Tensor> max_with_indices(const Tensor& x, int axis,
                                           const ReduceOptions& options = {});
Tensor sum_all(const Tensor& x);

// The loop nest of a reduction: x viewed as [outer, n, inner], reduced over n.
struct ReducePlan {
  int64_t outer, n, inner;
};

// out [outer, inner]; indices (i32, may be undefined) for max.
using ReduceKernel = void(const Tensor& x, const ReducePlan& p, Tensor& out, Tensor& indices);
REALMT_KERNEL_SLOT(sum_kernel, ReduceKernel);
REALMT_KERNEL_SLOT(max_kernel, ReduceKernel);

}  // namespace realmt::ops
