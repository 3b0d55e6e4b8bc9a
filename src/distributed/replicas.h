// Checks that the replicas of a data-parallel job hold the same bits (after setup, at every
// checkpoint): a cheap guard against ranks that started from different states (e.g. a state
// file not on a filesystem all ranks share) or an all-reduce that did not give every rank the
// same sum.
#pragma once

#include <string>

#include "distributed/communicator.h"

namespace realmt::distributed {

// A 64-bit hash of the tensor's bytes (copied to the host when on a GPU).
uint64_t content_hash(const Tensor& t);

// Collective: throws on every rank, naming `what` and how many ranks differ, unless every
// rank's `t` has rank 0's content.
void check_replicas_agree(Communicator& comm, const Tensor& t, const std::string& what);

}  // namespace realmt::distributed
