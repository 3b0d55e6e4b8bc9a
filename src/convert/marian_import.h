// Marian models (.npz, as OPUS-MT distributes them) with their YAML vocabularies ({piece: id}).
// The model's config comes from the npz ("special:model.yml"); Post-LN transformers are read
// (Marian's transformer-postprocess dan, the OPUS-MT models). The model keeps Marian's ids (eos
// 0, unk 1) and gets one more entry, <pad> (id = the vocabulary's size), a zero embedding row
// from which decoding starts (Marian starts from a zero vector) and an output bias of -1e9 (so
// that it takes no probability: Marian's softmax has no such entry); its positions are Marian's
// (sinusoidal-marian), its layer norms' epsilon 1e-6 and its embeddings scaled by sqrt(D), as in
// Marian. Hugging Face's conversion of the same model differs in the first two and gives the
// <pad> entry a logit of 0 (README, "OPUS-MT models").
#pragma once

#include <string>
#include <vector>

#include "convert/converted_model.h"

namespace realmt::convert {

// vocabs: the source and target .yml vocabularies (one path: both sides).
ConvertedModel import_marian(const std::string& npz, const std::vector<std::string>& vocabs);

}  // namespace realmt::convert
