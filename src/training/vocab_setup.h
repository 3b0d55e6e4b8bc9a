// Marian's vocabulary flows for realmt-train: a --vocabs file that does not exist yet is created
// from the train-sets before training, as Marian does.
//
// - A .spm: SentencePiece trained on the training text of every side that names this file (both
//   sides for a joint vocabulary), sampling sentencepiece-max-lines lines (0: all), with that
//   side's dim-vocabs pieces (32000 when 0 or not given), Marian's special pieces (</s> id 0,
//   <unk> id 1, no <s> nor <pad>: realmt adds those two, data/vocab.h) and sentencepiece-options'
//   flags last. Otherwise SentencePiece's defaults (unigram, nmt_nfkc, character coverage 0.9995).
// - A .yml, .yaml or .json: Marian's word list of the pre-segmented text's tokens
//   (data/marian_vocab.h), at most dim-vocabs ids (0 or not given: all).
// An existing file is used as it is, whatever dim-vocabs says.
#pragma once

#include <string>
#include <vector>

#include "training/train_options.h"

namespace realmt::training {

// Creates each missing vocabulary; returns the files it created (logged).
std::vector<std::string> create_missing_vocabs(const TrainOptions& options);

}  // namespace realmt::training
