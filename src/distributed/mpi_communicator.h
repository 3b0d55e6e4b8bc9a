// MPI communicator (CPU all-reduce; host collectives for NCCL). Only built with MPI.
//
// all_reduce_sum(Tensor) cuts the buffer into buckets of kBucketBytes, posts one
// MPI_Iallreduce per bucket (so large arenas never exceed MPI's int counts and the buckets are
// reduced as a pipeline), then polls MPI_Testall with the deadline. Tensors on a GPU are staged
// through host memory (the path when NCCL is not built).
#pragma once

#include <memory>

#include "distributed/communicator.h"

namespace realmt::distributed {

inline constexpr size_t kBucketBytes = size_t(32) << 20;

// A communicator over all processes of the MPI job (MPI_COMM_WORLD duplicated), initialising
// MPI first when needed.
std::unique_ptr<Communicator> make_mpi_communicator(double timeout_s);

}  // namespace realmt::distributed
