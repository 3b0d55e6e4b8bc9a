// Checkpoints: a ParameterSet (the model) or further parameter-shaped arenas (optimizer
// state) as safetensors files (models/safetensors.h), written atomically.
//
// Metadata conventions (the "__metadata__" of the file, all values strings):
//   "realmt.format"  "1": the layout below; load_* refuse other values, and accept files
//                    without the key (foreign safetensors, e.g. from Python).
//   "realmt.config"  the model config as YAML, filled by the model code, so that a
//                    checkpoint alone is enough to translate.
//   "realmt.crc32"   the CRC-32 of every tensor's bytes, in data order, 8 hex digits each,
//                    separated by spaces; written by every save, verified by every load
//                    (files without it are accepted: older or foreign files).
//   "realmt.vocab-table", "realmt.vocab-table-target"  a converted model's id tables (JSON
//                    arrays of pieces, by id; the second only with separate source and target
//                    vocabularies): realmt-convert writes them, decoding reads its vocabulary from
//                    them and the SentencePiece models given (data::Vocab::from_tables).
//   "realmt.vocab"   the vocabulary's fingerprint (data::Vocab::fingerprint), written by the
//                    programs that know the vocabulary (realmt-init, realmt-train, realmt-average
//                    copies it); decoding and training refuse another vocabulary
//                    (search::check_vocab_fingerprint).
//   "realmt.updates", "realmt.averaged", "realmt.converted-from"  realmt-train's update count,
//                    realmt-average's input count, a converted model's origin.
// realmt writes and reads these through one typed record (models::ModelMetadata,
// models/checkpoint_record.h); the vocabulary tables only through models::read_vocab_table.
// Every load also refuses a floating tensor holding NaN or Inf, naming the file and the tensor:
// such a model cannot translate, and resuming from it would spread the NaN into every later save.
// A model file holds one tensor per parameter under the parameter's own name.
//
// Training state is a separate file beside the model. It holds one tensor per parameter
// and arena as "<prefix>.<parameter name>" (e.g. "adam.m.encoder.layers.0.ffn.w1.weight")
// and the training progress as metadata: realmt-train's typed record (training::TrainingState,
// training/training_state.h) with the keys below among others.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/arena.h"
#include "graph/parameters.h"

namespace realmt::models {

inline constexpr const char* kFormatKey = "realmt.format";
inline constexpr const char* kFormatVersion = "1";
inline constexpr const char* kConfigKey = "realmt.config";
inline constexpr const char* kChecksumKey = "realmt.crc32";
inline constexpr const char* kVocabKey = "realmt.vocab";
inline constexpr const char* kVocabTableKey = "realmt.vocab-table";
inline constexpr const char* kVocabTargetTableKey = "realmt.vocab-table-target";
inline constexpr const char* kConvertedFromKey = "realmt.converted-from";
inline constexpr const char* kUpdatesKey = "realmt.updates";
inline constexpr const char* kAveragedKey = "realmt.averaged";
inline constexpr const char* kStepKey = "realmt.step";
inline constexpr const char* kEpochKey = "realmt.epoch";
inline constexpr const char* kDataPositionKey = "realmt.data_position";
inline constexpr const char* kRngStateKey = "realmt.rng_state";

using Metadata = std::map<std::string, std::string>;
struct SafetensorsFile;

struct LoadOptions {
  // A bf16 or f16 tensor in the file may be loaded into f32 slots (widened exactly on load).
  // Every other dtype difference is an error, and so is this one when false.
  bool widen_half_to_f32 = true;
  // Tensors in the file that the set lacks are skipped instead of being an error.
  bool ignore_unexpected = false;
  // load_parameters: receives, in place of a slot, the value of every parameter the set has
  // released (ParameterSet::allocate's `released`): its index and its value as a host tensor of
  // the set's dtype, valid during the call. This is how int8 loading quantizes each weight as it
  // is read (models::Transformer::quantize_weight). Required when the set has released parameters.
  std::function<void(int index, const Tensor& value)> released;
};

// Writes every parameter's value under its name, plus metadata (kFormatKey is added).
// The parameters must be allocated; they may live on any device.
void save_parameters(const std::string& path, const graph::ParameterSet& params,
                     const Metadata& metadata = {});

// Copies the file's tensors into the allocated parameter slots (any device). The file must
// hold exactly the set's names (missing and unexpected names are listed, each with its
// closest match) with equal shapes and dtypes (see LoadOptions). Nothing is copied unless
// every check passes (verify_checkpoint's included). The file is read a tensor at a time, never
// whole: a host slot takes its bytes straight from the file, any other destination goes through
// one host tensor. Returns the file's metadata.
Metadata load_parameters(const std::string& path, graph::ParameterSet& params,
                         const LoadOptions& options = {});

// One arena of parameter-shaped state (e.g. Adam's first moments) and its name prefix.
struct NamedArena {
  std::string prefix;  // e.g. "adam.m"
  const Arena& arena;  // one slot per parameter, in the order of `names`
};

// Writes every slot of every arena as "<prefix>.<names[i]>", plus metadata (kFormatKey is
// added). Each arena must have names.size() slots.
void save_arenas(const std::string& path, const std::vector<NamedArena>& arenas,
                 const std::vector<std::string>& names, const Metadata& metadata = {});

// Copies the file's tensors into the arenas' slots, with the same checks as
// load_parameters. Returns the file's metadata.
Metadata load_arenas(const std::string& path, const std::vector<NamedArena>& arenas,
                     const std::vector<std::string>& names, const LoadOptions& options = {});

// Throws naming `path` when the metadata marks a format other than kFormatVersion.
void check_checkpoint_format(const std::string& path, const Metadata& metadata);

// Checks a file before its tensors are used: the format (as above), each tensor against its
// kChecksumKey entry (when present), and every floating tensor for NaN and Inf. Errors name the
// file and the tensor. A file whose header alone was read (load_safetensors_header) is checked
// reading a few MB at a time.
void verify_checkpoint(const SafetensorsFile& file);

// Writes host tensors as a realmt checkpoint: the metadata plus kFormatKey and kChecksumKey.
void save_checkpoint(const std::string& path,
                     const std::vector<std::pair<std::string, Tensor>>& tensors, Metadata metadata);

}  // namespace realmt::models
