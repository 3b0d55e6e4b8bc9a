// Turns a pool of encoded pairs (a maxi-batch) into mini-batches, as Marian does: sort the pool
// by length, cut it into batches under the size limits, then shuffle the order of the batches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "data/batch.h"
#include "data/rng.h"
#include "data/vocab.h"

namespace realmt::data {

struct Sample {
  int64_t line = 0;               // 0-based corpus line index
  std::vector<int32_t> src, tgt;  // subword ids, each ending with the vocabulary's eos
  int64_t cost() const { return int64_t(std::max(src.size(), tgt.size())); }
};

struct BatchLimits {
  int64_t mini_batch = 64;       // > 0: at most this many pairs a batch
  int64_t mini_batch_words = 0;  // > 0: B x max(S, T) (padded tokens of the longer side) at most
                                 // this; a single pair longer than the budget forms a batch alone
  int32_t pad = kPadId;          // the id that fills rows to the batch's length (the vocabulary's)
};

// Pads and packs samples [begin, end) into a Batch.
Batch make_batch(const std::vector<Sample>& pool, size_t begin, size_t end, int64_t epoch,
                 int32_t pad = kPadId);

// Sorts `pool` by (target length, source length, line), cuts it into batches under `limits` and,
// when `rng` is not null, shuffles the order of the batches. Deterministic for a given rng state.
std::vector<Batch> cut_batches(std::vector<Sample>& pool, const BatchLimits& limits, int64_t epoch,
                               Rng* rng);

}  // namespace realmt::data
