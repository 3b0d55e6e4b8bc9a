// Integer GEMM of int8 inference (ops/quantize.h), through oneDNN's dnnl_gemm_u8s8s32
// (int8_gemm_onednn.cc; a build without oneDNN has the portable int8_gemm_portable.cc), which picks
// its kernel at run time from what the CPU reports (AVX2, AVX-512, VNNI, AMX). Chosen by
// bench/search/gemm_candidates_bench.cc over dnnl_gemm_s8s8s32 (slower: it shifts A itself on
// every call) and oneDNN's matmul primitive (on AVX2 it asks for plain weights and runs this GEMM).
//
// The scheme, y[i, j] ~= sum_k x[i, k] w[j, k]:
//   activations per row, asymmetric over the row's range [lo, hi] = [min(x, 0), max(x, 0)]:
//     x[i, k] ~= zero[i] + step[i] q[i, k],  q u8 in [0, 255],  step = (hi - lo) / 255, zero = lo
//     (a ReLU output, all >= 0, gets all 256 levels for its range, not half of them);
//   weights per output row, symmetric: w[j, k] ~= values[j, k] inv_scale[j], values s8 in
//     [-L, L], L = int8_weight_limit();
//   c[i, j] = sum_k q[i, k] values[j, k] in s32 (gemm_u8s8s32), then
//     y[i, j] = inv_scale[j] (step[i] c[i, j] + zero[i] sum_k values[j, k]) (dequantize_products).
// The zero point costs one multiply-add per output in dequantize_products, none in the GEMM.
#pragma once

#include <cstdint>

#include "core/cpu_isa.h"

namespace realmt::cpu {

// c[m, n] = sum_k a[m, k] * b[n, k] (row-major; s32 accumulation). a: u8 activations, b: s8
// weights, one row per output column, each with |b| <= int8_weight_limit().
void gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const int8_t* b,
                  int64_t ldb, int32_t* c, int64_t ldc);
// The same products in plain C++ (int8_gemm_portable.cc): gemm_u8s8s32 itself in a build without
// oneDNN (REALMT_ONEDNN), and the reference its test compares oneDNN's with.
void portable_gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda,
                           const int8_t* b, int64_t ldb, int32_t* c, int64_t ldc);

// The conversions around the GEMM, compiled per CPU level (int8_convert_cpu.cc): a kernel file's
// copy for a level calls the copy of the same level (REALMT_CPU_ISA_NS, core/cpu_isa.h).
inline namespace REALMT_CPU_ISA_NS {
// Quantizes m rows of x (row stride ldx) for gemm_u8s8s32 as above: q (row stride ldq), and per
// row step[i] and zero[i] (an all-zero row: step 1, zero 0, q 0).
void quantize_activations(int64_t m, int64_t k, const float* x, int64_t ldx, uint8_t* q,
                          int64_t ldq, float* step, float* zero);
// y[i, j] = inv_col[j] (step[i] c[i, j] + zero[i] col_sum[j]): the f32 product back from the s32
// one; col_sum[j] = sum_k of weight row j's values.
void dequantize_products(int64_t m, int64_t n, const int32_t* c, int64_t ldc, const float* step,
                         const float* zero, const float* inv_col, const int32_t* col_sum, float* y,
                         int64_t ldy);
}  // namespace REALMT_CPU_ISA_NS
// Rounds to the nearest integer, halves away from zero (vectorisable, unlike std::lround).
inline int32_t round_to_int(float v) {
  return static_cast<int32_t>(v + (v >= 0.0f ? 0.5f : -0.5f));
}

// The largest weight magnitude oneDNN's int8 kernel multiplies exactly: 127 with VNNI (vpdpbusd
// sums u8 x s8 products in s32); 63 without it, where vpmaddubsw adds two u8 x s8 products in
// saturating s16 (2 x 255 x 63 = 32130 < 32767, while 2 x 255 x 127 would saturate). Weights are
// quantized to this range (7 bits without VNNI), activations always to 8 bits: measured on three
// models, 8-bit activations with 7-bit weights err about as little as 7-bit activations with
// 8-bit weights, and less on two of them (bench/RESULTS.md, "int8 accuracy").
// oneDNN is capped once, before its first use, at the process's CPU level (cpu_isa_configured(),
// so REALMT_CPU_ISA holds for it too); the limit follows from the ISA it then dispatches to.
int int8_weight_limit();
// The ISA oneDNN's int8 GEMM runs at, for benchmark output: "avx512_core_vnni", "avx2_vnni",
// "avx2 (no vnni)", ...
const char* int8_cpu_features();

}  // namespace realmt::cpu
