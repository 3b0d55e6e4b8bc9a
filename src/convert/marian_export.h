// Writing a realmt model as a Marian model: MODEL.npz (numpy's zip of .npy arrays, Marian's
// parameter names, its config as "special:model.yml"), the vocabulary beside it and
// MODEL.npz.decoder.yml (marian-decoder -c MODEL.npz.decoder.yml). The inverse of
// marian_import.h; the parameter names are marian_names.h's.
//
// What Marian's transformer expresses, and so what is written: Post-LN layers (transformer-
// postprocess dan) without residual attention and without ADMIN omegas, Marian's sinusoidal
// positions (transformer-positions sinusoidal-marian) with the sqrt(D) embedding scale, layer
// norms of epsilon 1e-6, relu / swish / gelu feed-forwards, tied or untied tables, an output bias
// (zeros when the model has none), and a decoder that starts from a zero vector (Marian's start):
// a realmt-trained model needs decoder-start-zero, a converted Marian / Hugging Face model starts
// from its zero <pad> row, which is dropped (as the importer added it). Anything else is refused
// with the option that would make the model exportable.
//
// Vocabulary. Marian numbers a SentencePiece model (.spm) by the model's own ids (eos and unk
// are the model's); realmt's ids are those ids when the .spm has pad 0, unk 1, bos 2, eos 3 (a
// realmt-data vocab), and the .spm is then copied (MODEL.vocab.spm: Marian segments the text
// itself). Otherwise, and for a converted model, Marian's .yml {piece: id} is written in realmt's
// ids (MODEL.vocab.yml, or MODEL.vocab.src.yml and .trg.yml); a .yml vocabulary reads and
// writes pieces separated by spaces. The pieces <pad> and <s> (never produced by realmt) are
// ordinary entries for Marian.
#pragma once

#include <string>
#include <vector>

#include "convert/converted_model.h"

namespace realmt::convert {

struct MarianExportOptions {
  std::string spm;  // a realmt-trained model: the .spm it was trained with (copied when its ids are
                    // realmt's)
  int beam_size = 4;  // the decoder config's beam-size
};

// Writes `npz` (a path ending in .npz), the vocabulary and npz + ".decoder.yml"; returns the
// vocabulary files written (source first; one when both sides share it).
std::vector<std::string> write_marian(const ConvertedModel& m, const std::string& npz,
                                      const MarianExportOptions& options = {});

// Why the model cannot be written as a Marian model, or "" when it can (the checks above).
std::string marian_incompatibility(const models::ModelConfig& c);

}  // namespace realmt::convert
