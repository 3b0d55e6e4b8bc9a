// The communicator of a job of one process: every collective is the identity, no MPI.
#pragma once

#include "distributed/communicator.h"

namespace realmt::distributed {

class SingleCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  std::string name() const override { return "single"; }
  void all_reduce_sum(const Tensor& buffer) override;
  void all_reduce_sum(std::span<double>) override {}
  void all_reduce_sum(std::span<int64_t>) override {}
  void broadcast(std::string&, int root) override;
  void barrier() override {}
};

}  // namespace realmt::distributed
