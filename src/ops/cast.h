// cast: y = x converted element by element to another dtype; any of the six to any of the six.
//   x [...] -> y [...] in `dtype`; always a new tensor (a copy when the dtype is the same).
// Conversions:
//   to f32/f64: exact where representable, else round to nearest even.
//   to f16/bf16: round to nearest even (core/half.h), overflowing to +-inf (f16: |x| >= 65520);
//     NaN stays NaN. From f64 and i32 the rounding is done once, correctly: the value is first
//     narrowed to f32 with round-to-odd, which makes the second rounding exact.
//   floating -> i32/u8: truncates toward zero like static_cast; values outside the target's
//     range saturate to its limits and NaN gives 0 (where static_cast is undefined; this is
//     also what CUDA's __float2int_rz does).
//   i32 -> u8: keeps the low 8 bits (static_cast, modulo 256). u8 -> i32: exact.
// Not in place.
#pragma once

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

Tensor cast(const Tensor& x, DType dtype);

// y has x's shape and the target dtype (which differs from x's).
using CastKernel = void(const Tensor& x, Tensor& y);
REALMT_KERNEL_SLOT(cast_kernel, CastKernel);

}  // namespace realmt::ops
