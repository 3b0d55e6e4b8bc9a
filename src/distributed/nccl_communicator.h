// NCCL communicator: one process per GPU. Only built with CUDA, NCCL and MPI.
//
// Setup: rank 0 creates the ncclUniqueId and `host` (MPI) broadcasts it; each rank then joins
// a non-blocking NCCL communicator on its device (ncclCommInitRankConfig, blocking = 0), so
// that the join itself has a deadline. all_reduce_sum(Tensor) enqueues ncclAllReduce on the
// device's compute stream (cuda::current_stream: ordered after backward and before the
// optimizer, no extra events) and waits for it with the deadline, polling cudaStreamQuery and
// ncclCommGetAsyncError; on a timeout or an asynchronous NCCL error it calls ncclCommAbort
// (which frees the GPU from the stuck kernel) and throws. Host values, strings and barriers go
// through `host`.
#pragma once

#include <memory>

#include "distributed/communicator.h"

namespace realmt::distributed {

std::unique_ptr<Communicator> make_nccl_communicator(std::unique_ptr<Communicator> host, int device,
                                                     double timeout_s);

}  // namespace realmt::distributed
