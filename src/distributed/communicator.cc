#include "distributed/communicator.h"

#include <cstdlib>
#include <cstring>
#include <exception>

#include "distributed/mpi_communicator.h"
#include "distributed/mpi_runtime.h"
#include "distributed/nccl_communicator.h"
#include "distributed/single_communicator.h"

namespace realmt::distributed {

bool launched_by_mpi() {
  // OpenMPI's mpirun, then PMI-1/2 (MPICH's hydra, srun --mpi=pmi2) and PMIx (srun, prterun).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    const char* v = std::getenv(name);
    if (v && *v) return true;
  }
  return false;
}

std::unique_ptr<Communicator> make_world(const WorldOptions& options) {
  REALMT_CHECK(options.timeout_s > 0, "comm-timeout must be positive, got {}", options.timeout_s);
  if (!launched_by_mpi()) return std::make_unique<SingleCommunicator>();
  mpi::init();
#if REALMT_WITH_MPI
  std::unique_ptr<Communicator> world = make_mpi_communicator(options.timeout_s);
  if (world->size() == 1) return std::make_unique<SingleCommunicator>();
  return world;
#else
  return std::make_unique<SingleCommunicator>();  // not reached: mpi::init() throws
#endif
}

std::unique_ptr<Communicator> for_device(std::unique_ptr<Communicator> host, Device device,
                                         const WorldOptions& options) {
  if (!device.is_cuda() || host->size() == 1) return host;
#if REALMT_WITH_NCCL
  return make_nccl_communicator(std::move(host), device.index, options.timeout_s);
#else
  // No NCCL: MPI stages GPU buffers through host memory (correct, slower).
  return host;
#endif
}

std::vector<std::string> all_gather(Communicator& comm, const std::string& mine) {
  std::vector<std::string> all(static_cast<size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    std::string s = r == comm.rank() ? mine : std::string();
    comm.broadcast(s, r);
    all[static_cast<size_t>(r)] = std::move(s);
  }
  return all;
}

FailureGuard::FailureGuard() : uncaught_(std::uncaught_exceptions()) {}

FailureGuard::~FailureGuard() {
  if (std::uncaught_exceptions() > uncaught_) mpi::mark_failed();
}

}  // namespace realmt::distributed
