// A stable sort of i32 ids in [0, limit) on a CUDA device, for deterministic scatter-adds
// (embedding and index_select backward): positions with equal ids stay in position order, so
// summing each run of equal ids in sorted order adds in the same order as the CPU kernels.
#pragma once

#include "core/tensor.h"

namespace realmt::cuda {

struct SortedIds {
  Tensor ids;        // i32 [n], ascending
  Tensor positions;  // i32 [n], positions[i] = where ids[i] was in the input
};

// ids: i32 [n] (any shape, seen flat) on a CUDA device, every value in [0, limit).
SortedIds sort_ids(const Tensor& ids, int64_t limit);

}  // namespace realmt::cuda
