// One training mini-batch: token ids only (std::vector, no tensors), ready to copy into tensors.
#pragma once

#include <cstdint>
#include <vector>

#include "data/vocab.h"

namespace realmt::data {

struct Batch {
  int64_t size = 0;     // B: sentence pairs in the batch
  int64_t src_len = 0;  // S: longest source sequence, its eos included
  int64_t tgt_len = 0;  // T: longest target sequence, its eos included
  // B x S and B x T, row-major. Row b holds the subword ids of pair b followed by eos, then pad
  // up to the row's end (kEosId and kPadId, or a converted model's ids: Vocab::ids()). Neither
  // side carries the decoder start: the trainer shifts the target right with it to form the decoder
  // input.
  std::vector<int32_t> src, tgt;
  std::vector<int64_t> ids;  // B: 0-based corpus line index of each row (line ids[b]+1 of the file)
  int64_t src_tokens = 0;    // non-pad source tokens (eos included)
  int64_t tgt_tokens = 0;    // non-pad target tokens (eos included): what tokens/s counts
  int64_t epoch = 0;         // 0-based epoch the batch belongs to

  int32_t src_at(int64_t b, int64_t s) const { return src[size_t(b * src_len + s)]; }
  int32_t tgt_at(int64_t b, int64_t t) const { return tgt[size_t(b * tgt_len + t)]; }
};

}  // namespace realmt::data
