// Loading realmt checkpoints for decoding: the architecture comes from the checkpoint's
// "realmt.config" metadata (models/checkpoint.h), so a checkpoint alone is a model.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "data/vocab.h"
#include "models/checkpoint.h"
#include "models/transformer.h"

namespace realmt::search {

// Weights for decoding: as stored, or int8 (per output row, CPU; models::Transformer::quantize).
enum class Quantize { kNone, kInt8 };
Quantize parse_quantize(const std::string& name);  // "none" | "int8"

// The model config stored in `path`; a clear error when the file is missing or has none.
models::ModelConfig read_model_config(const std::string& path);
// Builds the model from its stored config and loads its weights onto `device` (no gradient
// arena: a decoding model), quantized when asked: then each weight is quantized as it is read,
// so the f32 model never exists in memory (models::Transformer::allocate_int8).
std::unique_ptr<models::Transformer> load_model(const std::string& path, Device device,
                                                Quantize quantize = Quantize::kNone);
// The vocabulary of the checkpoint at `model_path`: the vocabulary given (once, or once a side:
// data::Vocab::pair) for a realmt-trained model; for a converted model (its metadata has
// models::kVocabTableKey), its id tables with the source and target SentencePiece models given
// (one path: both sides). Errors name the files and say what to give.
data::Vocab load_vocab(const std::vector<std::string>& vocab_paths, const std::string& model_path,
                       const models::ModelConfig& config);
// Throws naming both files when the vocabulary does not have the model's number of pieces, or
// is another vocabulary than the one the checkpoint records (check_vocab_fingerprint).
void check_vocab_matches(const data::Vocab& vocab, const models::Transformer& model,
                         const std::string& model_path);
// Throws naming both files when the checkpoint's metadata records another vocabulary's
// fingerprint (models::kVocabKey); a checkpoint without one is accepted.
void check_vocab_fingerprint(const data::Vocab& vocab, const models::Metadata& metadata,
                             const std::string& checkpoint_path);
// Throws unless every model of an ensemble has member 0's vocabulary sizes and special ids.
void check_ensemble_vocabularies(const std::vector<const models::Transformer*>& models);
// "" or "cpu": the CPU; "0" or "cuda:0": that GPU (the `devices` option's first entry).
Device parse_decode_device(const std::vector<std::string>& devices);

}  // namespace realmt::search
