// The vocabulary that goes with a decoding model: which one a checkpoint needs (its own id
// tables for a converted model, the SentencePiece model it was trained with otherwise) and the
// checks that the one given is that one, for one model and for the members of an ensemble.
#pragma once

#include <string>
#include <vector>

#include "data/vocab.h"
#include "models/checkpoint.h"
#include "models/transformer.h"

namespace realmt::search {

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

}  // namespace realmt::search
