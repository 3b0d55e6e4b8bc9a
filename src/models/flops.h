// Training FLOPs a target token, for MFU figures (6 x the parameters a token meets). With
// r = S/T (source over target length), D = dim-emb, F = dim-ffn, V = vocabulary:
//   6 x [ r * Le (4D^2 + 2DF)                 encoder weight matrices, per source token
//         + Ld (6D^2 + 2DF) + r * Ld 2D^2      decoder: self qkvo, cross q/o, FFN; cross k/v on the
//         source
//         + V D ]                              output projection (embedding lookups excluded)
//   + 12 D (Le S r + Ld T + Ld S)              attention score and context products, fwd + bwd
#pragma once

#include "models/model_config.h"

namespace realmt::models {

double training_flops_per_target_token(const ModelConfig& config, double src_len, double tgt_len);

}  // namespace realmt::models
