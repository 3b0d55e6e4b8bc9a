// realmt-train's `precision`: f32 (exact, CPU or GPU), tf32 (f32 weights and activations, GEMMs
// on TF32 tensor cores), bf16 and f16 (compute copy of the weights, f32 master; f16 with dynamic
// loss scaling: training/mixed_precision.h); all but f32 need a CUDA device. Marian's float32,
// bfloat16 and float16 are further spellings.
#pragma once

#include <array>

#include "common/enum_names.h"
#include "core/dtype.h"

namespace realmt::training {

enum class Precision { kF32, kTf32, kBf16, kF16 };
constexpr auto enum_names(Precision) {
  return std::to_array<EnumName<Precision>>({{Precision::kF32, "f32"},
                                             {Precision::kTf32, "tf32"},
                                             {Precision::kBf16, "bf16"},
                                             {Precision::kF16, "f16"},
                                             {Precision::kF32, "float32"},
                                             {Precision::kBf16, "bfloat16"},
                                             {Precision::kF16, "float16"}});
}

// The dtype forward and backward run in (the master's for f32 and tf32).
DType compute_dtype(Precision p);

}  // namespace realmt::training
