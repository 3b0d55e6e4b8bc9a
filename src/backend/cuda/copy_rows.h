// Strided byte copies on a device's current stream, for the ops that move slabs of a tensor
// (slice, concat): `rows` rows of `row_bytes` bytes, a row every src_pitch bytes in src and
// every dst_pitch bytes in dst. Both pointers are on CUDA device `device`.
#pragma once

#include <cstddef>

namespace realmt::cuda {

void copy_rows(int device, void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
               size_t row_bytes, size_t rows);

}  // namespace realmt::cuda
