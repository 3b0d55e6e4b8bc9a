// Loading realmt checkpoints for decoding: the architecture comes from the checkpoint's
// "realmt.config" metadata (models::read_model_config), so a checkpoint alone is a model.
// The vocabulary checks that go with it are in search/vocab_checks.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/enum_names.h"
#include "core/device.h"
#include "models/checkpoint.h"
#include "models/transformer.h"

namespace realmt::search {

// Weights for decoding: as stored, or int8 (per output row, CPU; models::Transformer::quantize).
enum class Quantize { kNone, kInt8 };
constexpr auto enum_names(Quantize) {
  return std::to_array<EnumName<Quantize>>({{Quantize::kNone, "none"}, {Quantize::kInt8, "int8"}});
}

// Builds the model from its stored config and loads its weights onto `device` (no gradient
// arena: a decoding model), quantized when asked: then each weight is quantized as it is read,
// so the f32 model never exists in memory (models::Transformer::allocate_int8).
std::unique_ptr<models::Transformer> load_model(const std::string& path, Device device,
                                                Quantize quantize = Quantize::kNone);
// "" or "cpu": the CPU; "0" or "cuda:0": that GPU (the `devices` option's first entry).
Device parse_decode_device(const std::vector<std::string>& devices);

}  // namespace realmt::search
