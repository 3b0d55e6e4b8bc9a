// A Hugging Face MarianMTModel's config.json as a realmt ModelConfig. Every field a MarianConfig
// (and the PretrainedConfig it extends) can hold is in one table, with what realmt does with it:
//
//   used     read into the model (sizes, activation, dropouts, embedding scale and tying, ids)
//   ignored  changes nothing realmt computes, with the reason (generation defaults that
//            realmt-translate takes from its own options, PyTorch runtime switches, provenance)
//   checked  realmt implements one value (or a range): any other is refused, naming the field,
//            the value and the reason (pre-norm flags, learned positions, pruned heads, ...)
//
// A field the table lacks (a newer transformers, a custom field) is not refused: one warning
// names all of them, since the table cannot know whether they matter.
#pragma once

#include <string>
#include <vector>

#include "models/model_config.h"

namespace realmt::convert {

enum class HfFieldRole { kUsed, kIgnored, kChecked };

struct HfField {
  const char* name;
  HfFieldRole role;
  const char* note;  // used: what it sets; ignored: why it changes nothing; checked: what is
                     // accepted and why
};

// The table, in config.json's groups (model, ids, checked flags, runtime, generation).
const std::vector<HfField>& hf_config_fields();

struct HfConfig {
  models::ModelConfig model;  // validated, except unk_id (vocab.json's "<unk>", set by the caller)
  bool share = true;          // share_encoder_decoder_embeddings: one table for source and target
  bool tie = true;            // tie_word_embeddings: the target table is the output projection
  int64_t target_vocab = 0;   // decoder_vocab_size (vocab_size when absent)
  std::vector<std::string> unknown;  // fields the table lacks (warned about)
};

// Reads config.json at `path`; errors name the file and the field. Missing eos_token_id means 0
// (MarianConfig's default, which transformers applies too); pad_token_id is required (its default
// belongs to one particular vocabulary).
HfConfig read_hf_config(const std::string& path);

}  // namespace realmt::convert
