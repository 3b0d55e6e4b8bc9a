// Dropout keep flags for CPU kernels that fuse dropout into another pass (attention, the
// sub-layer epilogue, bias + activation). Element e of a stream (seed, first + e) is kept iff
// dropout_keep(philox_u32(seed, first + e), threshold), exactly as ops::dropout decides
// (ops/dropout.h), so a fused kernel and the separate op draw the same mask.
// Chosen at run time (ops/dropout_mask.cc): at the avx2 level and above (core/cpu_isa.h) eight
// Philox blocks run side by side in the 32-bit lanes of ymm registers; below, a scalar loop.
#pragma once

#include <cstdint>

#include "ops/dropout.h"  // dropout_threshold, dropout_keep

namespace realmt::ops {

// keep[e] = 1 or 0 for e in [0, n): stream indices [first, first + n).
void dropout_keep_flags(uint64_t seed, uint64_t first, int64_t n, uint32_t threshold,
                        uint8_t* keep);

}  // namespace realmt::ops
