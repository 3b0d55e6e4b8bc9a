#include "distributed/single_communicator.h"

namespace realmt::distributed {

void SingleCommunicator::all_reduce_sum(const Tensor& buffer) {
  check_defined(buffer, "all_reduce_sum", "buffer");
}

void SingleCommunicator::broadcast(std::string&, int root) {
  REALMT_CHECK(root == 0, "broadcast: root {} is not a rank of a 1-process job", root);
}

}  // namespace realmt::distributed
