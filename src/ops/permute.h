// permute: y = x with its axes reordered, as a contiguous copy.
//   x [d_0, ..., d_{r-1}] (rank 0..8), perm a permutation of 0..r-1 (negative entries count
//   from the end) -> y [d_perm[0], ..., d_perm[r-1]], y[i_0, ..., i_{r-1}] = x[j] with
//   j_perm[a] = i_a.
//   Attention head split [B, T, H, Dh] -> [B, H, T, Dh] is permute(x, {0, 2, 1, 3}), and the
//   merge back is the same permutation.
// transpose(x, a, b): permute exchanging axes a and b (negative axes count from the end).
// dtypes: all six (the kernel moves bytes). Not in place; y never shares x's storage.
#pragma once

#include <array>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor permute(const Tensor& x, const std::vector<int>& perm);
Tensor transpose(const Tensor& x, int a, int b);

// The copy a permute kernel runs, after dropping extent-1 axes and merging neighbouring
// output axes that stay neighbours in x. y is contiguous over `dims`; element (i_0, ...,
// i_{rank-1}) of y reads x at sum_a i_a * x_strides[a] (in elements).
//   x_strides[rank-1] == 1: rows of dims[rank-1] elements are contiguous in x and y (the
//     head split/merge case: rows of Dh).
//   otherwise: the axis `x_unit` (x_strides[x_unit] == 1) and the last axis form a 2-D
//     transpose, done in cache-sized tiles; the other axes are a batch.
struct PermutePlan {
  int rank = 1;                               // >= 1 after collapsing
  std::array<int64_t, kMaxDims> dims{};       // y's extents (collapsed)
  std::array<int64_t, kMaxDims> x_strides{};  // x's element stride along each y axis
  int x_unit = 0;                             // the y axis with x stride 1
  int64_t numel = 0;
};
PermutePlan plan_permute(const Shape& x, const std::vector<int>& perm);

using PermuteKernel = void(const Tensor& x, const PermutePlan& plan, Tensor& y);
REALMT_KERNEL_SLOT(permute_kernel, PermuteKernel);

}  // namespace realmt::ops
