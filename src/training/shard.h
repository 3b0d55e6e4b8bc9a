// Batch sharding for data parallelism (the trainer's: distributed/ only moves numbers), per
// device as fairseq's max-tokens and Marian's mini-batch-fit budget: mini-batch-words is what
// ONE rank trains on in one forward/backward pass, so an update holds ranks x optimizer-delay
// batches of it.
//
// Every rank runs the same BatchGenerator (same corpus, seed and options, hence the same batch
// stream: b0 b1 b2 ...). The stream is dealt out in rounds of `size` batches: in round k, rank r
// trains on batch k * size + r, and the other batches of the round are drawn and dropped. The
// ranks thus train on disjoint batches that together cover the stream in order, every rank knows
// every batch's size (so the job-wide counters agree without a collective), and they all see
// the end of an epoch in the same round. N ranks with optimizer-delay d therefore train on
// exactly the batches that one process with optimizer-delay N x d trains on, and the summed
// gradient (a token-weighted sum: gradients are sums over target tokens, normalised by the
// job's token count) equals the one-process gradient up to the order of the sums.
// Cost: each rank reads and encodes the whole stream (as each Marian MPI process reads the whole
// corpus); only the batching of the dropped batches is wasted beyond that.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "data/batch.h"

namespace realmt::training {

struct Round {
  std::optional<data::Batch> own;  // this rank's batch; none when the epoch ended before it
  int64_t batches = 0;             // batches of the round drawn from the stream (all ranks')
  int64_t sentences = 0;           // their sentence pairs
  bool end_of_epoch = false;       // the stream ended in this round (the rest of it is empty)
};

// Draws one round: up to `size` batches from `next` (which returns nullopt at the end of an
// epoch, as data::BatchGenerator::next), keeping batch number `rank` of the round. After an
// end of epoch nothing more is drawn, so the next call starts the next epoch.
Round draw_round(const std::function<std::optional<data::Batch>()>& next, int rank, int size);

}  // namespace realmt::training
