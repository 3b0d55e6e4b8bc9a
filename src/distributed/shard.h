// Batch sharding for data parallelism: every rank runs the same BatchGenerator (same seed,
// same options, so the same batch sequence) and trains on its own rows of each batch. The sum
// over ranks of the per-rank gradient sums is then the gradient of the whole batch, and the
// update equals the one-process update up to the order of floating-point summation.
#pragma once

#include "data/batch.h"

namespace realmt::distributed {

// Rows [rank * B / size, (rank + 1) * B / size) of `batch`, with their line ids and token
// counts. The lengths S and T stay those of the whole batch (rows are length-sorted, so
// trimming would save little, and equal shapes keep each row's arithmetic as in one process).
// A rank may get no rows when B < size; it then contributes nothing but still takes part in
// every collective.
data::Batch shard_rows(const data::Batch& batch, int rank, int size);

}  // namespace realmt::distributed
