// Dropout with a counter-based mask: no mask tensor is stored, the backward pass regenerates it.
//   x [...] (any shape), f32/f64 on the CPU -> y [...] like x.
// Element e (flat index) is kept iff u32_to_unit_float(philox_u32(seed, offset + e)) >= p
// (core/rng.h), equivalently iff (philox_u32(seed, offset + e) >> 8) >= dropout_threshold(p);
// kept elements become x * scale with scale = 1 / (1 - p) computed in double and rounded to
// the element type once; dropped ones become 0. The mask depends only on (seed, offset + e),
// so the CPU and CUDA kernels produce the same mask on any number of threads.
//   dropout_backward(dy, o) = dy * mask * scale with the same options.
// p must be in [0, 1); p == 0 returns the input tensor itself (no copy, no numbers drawn).
// Not in place.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace realmt::ops {

struct DropoutOptions {
  double p = 0.0;       // probability of dropping an element, in [0, 1)
  uint64_t seed = 0;    // Philox key
  uint64_t offset = 0;  // stream index of element 0 (Generator::reserve gives one)
};

Tensor dropout(const Tensor& x, const DropoutOptions& o);
Tensor dropout_backward(const Tensor& dy, const DropoutOptions& o);

// The keep test in integers: with r = bits >> 8 (24 bits), u32_to_unit_float(bits) = r / 2^24
// exactly, so r / 2^24 >= p  <=>  r >= ceil(p * 2^24) (p * 2^24 is exact in double).
inline uint32_t dropout_threshold(double p) {
  return static_cast<uint32_t>(std::ceil(p * 16777216.0));
}
inline bool dropout_keep(uint32_t bits, uint32_t threshold) { return (bits >> 8) >= threshold; }

// y = x * mask * scale (see above); called only for 0 < p < 1 and a non-empty x.
using DropoutKernel = void(const Tensor& x, const DropoutOptions& o, Tensor& y);
REALMT_KERNEL_SLOT(dropout_kernel, DropoutKernel);

}  // namespace realmt::ops
