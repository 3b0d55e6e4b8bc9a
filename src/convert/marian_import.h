// Marian models (.npz, as OPUS-MT distributes them or Marian trains them) with their
// vocabularies: .spm SentencePiece models (the model's own ids, as Marian uses them) or .yml
// {piece: id} maps, one joint or one a side, in any mix. The model's config comes from the npz
// ("special:model.yml"; every key classified by marian_keys.h); Post-LN and Pre-LN (with its final
// norms) transformers are read. The model keeps Marian's ids (eos 0, unk 1; a side's ids up to its
// dim-vocabs size, unused ones named <unused:ID>) and gets one more entry, <pad> (id = the larger
// side's size), a zero embedding row from which decoding starts (Marian starts from a zero vector)
// and an output bias of -1e9 (so that it takes no probability: Marian's softmax has no such
// entry); its positions are Marian's (sinusoidal-marian), its layer norms' epsilon 1e-6 and its
// embeddings scaled by sqrt(D), as in Marian. Hugging Face's conversion of the same model differs
// in the first two and gives the <pad> entry a logit of 0 (README, "OPUS-MT models").
#pragma once

#include <string>
#include <vector>

#include "convert/converted_model.h"
#include "ops/bias_activation.h"

namespace realmt::convert {

// vocabs: the source and target vocabularies, .spm or .yml (one path: both sides).
ConvertedModel import_marian(const std::string& npz, const std::vector<std::string>& vocabs);

// The activation Marian's `gelu` means in a model written by Marian `version` (special:model.yml's
// `version`): the erf GELU from v1.12.42 on (and for "realmt-convert"), x sigmoid(1.702 x) before
// it and when the version is missing or unreadable.
ops::Activation marian_gelu(const std::string& version);

}  // namespace realmt::convert
