// Hugging Face MarianMTModel directories (OPUS-MT models as the Hub has them): config.json (read
// by convert/hf_config.h, whose table says what each field does), the weights (model.safetensors,
// or pytorch_model.bin as older models have it, each whole or sharded with its .index.json; f16,
// bf16 and f64 tensors read as f32, integer and bool buffers skipped with a debug line), vocab.json
// (and target_vocab.json with separate vocabularies). The model keeps Hugging Face's ids and
// conventions (eos 0, unk 1, pad last, decoding starts from pad, whose embedding is zero), its
// sinusoidal positions in two halves (sin | cos), the sqrt(D) scale as config.json says, layer
// norms with epsilon 1e-5, the final_logits_bias (when not all zero), and the tying of
// share_encoder_decoder_embeddings / tie_word_embeddings. source.spm and target.spm stay where
// they are: decoding takes them as its vocabs.
#pragma once

#include <string>

#include "convert/converted_model.h"

namespace realmt::convert {

// Errors name the file and the field or tensor (and say what is not supported: another model
// type, pre-norm variants, unequal encoder and decoder shapes, a needed tensor of an integer
// dtype, a missing shard).
ConvertedModel import_hf(const std::string& dir);

}  // namespace realmt::convert
