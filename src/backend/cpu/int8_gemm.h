// Integer GEMM of int8 inference (ops/quantize.h), through oneDNN's dnnl_gemm_u8s8s32, which picks
// its kernel at run time from what the CPU reports (AVX2, AVX-512, VNNI, AMX). Chosen by
// bench/search/gemm_candidates_bench.cc over dnnl_gemm_s8s8s32 (slower: it shifts A itself on
// every call) and oneDNN's matmul primitive (on AVX2 it asks for plain weights and runs this GEMM).
//   c[m, n] = sum_k a[m, k] * b[n, k] + col_offset[n]        (row-major; s32 accumulation)
// a: u8 activations (the signed quantized value + 128); b: s8 weights, one row per output column,
// each with |b| <= int8_weight_limit(); col_offset: -128 * sum_k b[n, k] undoes the shift.
#pragma once

#include <cstdint>

#include "core/cpu_isa.h"

namespace realmt::cpu {

void gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const int8_t* b, int64_t ldb,
                  const int32_t* col_offset, int32_t* c, int64_t ldc);

// The conversions around the GEMM, compiled per CPU level (int8_convert_cpu.cc): a kernel file's
// copy for a level calls the copy of the same level (REALMT_CPU_ISA_NS, core/cpu_isa.h).
inline namespace REALMT_CPU_ISA_NS {
// Quantizes m rows of x (row stride ldx) to 8 bits for gemm_u8s8s32: per row s = 127 / max |x|
// (1 for an all-zero row), q = round(x s) + 128 as u8 (row stride ldq), inv_row[i] = 1 / s.
void quantize_activations(int64_t m, int64_t k, const float* x, int64_t ldx, uint8_t* q, int64_t ldq,
                          float* inv_row);
// y[i, j] = c[i, j] * inv_row[i] * inv_col[j]: the f32 product back from the s32 one.
void dequantize_products(int64_t m, int64_t n, const int32_t* c, int64_t ldc, const float* inv_row,
                         const float* inv_col, float* y, int64_t ldy);
}  // namespace REALMT_CPU_ISA_NS
// Rounds to the nearest integer, halves away from zero (vectorisable, unlike std::lround).
inline int32_t round_to_int(float v) { return static_cast<int32_t>(v + (v >= 0.0f ? 0.5f : -0.5f)); }

// The largest weight magnitude oneDNN's int8 kernel multiplies exactly: 127 with VNNI (vpdpbusd
// sums u8 x s8 products in s32); 63 without it, where vpmaddubsw adds two u8 x s8 products in
// saturating s16 (2 x 255 x 63 = 32130 < 32767, while 2 x 255 x 127 would saturate). Weights are
// quantized to this range (7 bits without VNNI), activations always to 8 bits.
// oneDNN is capped once, before its first use, at the process's CPU level (cpu_isa_configured(),
// so REALMT_CPU_ISA holds for it too); the limit follows from the ISA it then dispatches to.
int int8_weight_limit();
// The ISA oneDNN's int8 GEMM runs at, for benchmark output: "avx512_core_vnni", "avx2_vnni",
// "avx2 (no vnni)", ...
const char* int8_cpu_features();

}  // namespace realmt::cpu
