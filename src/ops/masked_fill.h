// masked_fill: y = where(mask != 0, value, x).
//   x [...]; mask u8 broadcastable to x (numpy rules, e.g. a padding mask [B, 1, 1, S] over
//   scores [B, H, T, S]); value converted to x's dtype (-inf is allowed for floating x; for
//   i32/u8 x it must be an integer in the dtype's range). -> y [...] like x.
// masked_fill_backward is masked_fill(dy, mask, 0): filled positions get no gradient.
// dtypes: x all six. Not in place.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/elementwise.h"

namespace realmt::ops {

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);

// The plan is plan_broadcast(x, mask, x): stride_a walks x (contiguous), stride_b the mask
// (0 along broadcast axes).
using MaskedFillKernel = void(const Tensor& x, const Tensor& mask, double value,
                              const BroadcastPlan& plan, Tensor& y);
REALMT_KERNEL_SLOT(masked_fill_kernel, MaskedFillKernel);

}  // namespace realmt::ops
