// Data-parallel communication: every process (rank) of a job holds a full replica of the model;
// gradients are summed over ranks so that all replicas take the same optimizer step.
//
// Implementations (picked by make_world / for_device, never named by the trainer):
//   single  one process, no MPI: every collective is the identity
//   mpi     processes started by mpirun (OpenMPI): MPI_Iallreduce on CPU buffers, bucketed;
//           buffers on a GPU are staged through host memory (when NCCL is not built)
//   nccl    one process per GPU: ncclAllReduce on the device's stream; the NCCL id is sent over
//           MPI, which also carries the host-side collectives (scalars, strings, barriers)
//
// Every collective must be called by all ranks in the same order with the same sizes. Every
// collective has a deadline (timeout_s): when another rank has died, hung or fallen too far
// behind, the call throws CommTimeout instead of waiting for ever, and the process is marked
// failed, so that it ends the whole job at exit (MPI_Abort) instead of waiting in MPI_Finalize.
//
// Sums of floating-point buffers give bit-identical results on all ranks (MPI's reduction of a
// commutative operation, NCCL's reduce-scatter + all-gather); the trainer checks this at every
// checkpoint (replicas.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/error.h"
#include "core/tensor.h"

namespace realmt::distributed {

// A collective that missed its deadline.
class CommTimeout : public Error {
 public:
  using Error::Error;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Rank among the processes on this machine (which GPU a process takes).
  virtual int local_rank() const = 0;
  virtual std::string name() const = 0;  // "single", "mpi", "nccl"

  // Sums `buffer` (contiguous; f32 or f64, and f16/bf16 on NCCL) over all ranks, in place.
  virtual void all_reduce_sum(const Tensor& buffer) = 0;
  // Sums a few host values (loss sums, token counts, flags) over all ranks, in place.
  virtual void all_reduce_sum(std::span<double> values) = 0;
  virtual void all_reduce_sum(std::span<int64_t> values) = 0;
  // Replaces `bytes` on every rank by root's.
  virtual void broadcast(std::string& bytes, int root) = 0;
  virtual void barrier() = 0;
};

struct WorldOptions {
  double timeout_s = 600;  // deadline of every collective, in seconds
};

// Whether this process was started by an MPI launcher (mpirun/mpiexec, srun with PMI): read
// from the environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK), without touching MPI.
bool launched_by_mpi();

// The job's host communicator: "single" unless launched_by_mpi(), else "mpi" (MPI is
// initialised on first use; a job of one process gets "single"). Throws when launched by
// mpirun but built without MPI.
std::unique_ptr<Communicator> make_world(const WorldOptions& options);

// The communicator for gradients on `device`: for a CUDA device and a job of several processes,
// "nccl" over host's ranks (when NCCL is built); otherwise `host` itself.
std::unique_ptr<Communicator> for_device(std::unique_ptr<Communicator> host, Device device,
                                         const WorldOptions& options);

// Every rank's `mine`, in rank order (collective; built on broadcast).
std::vector<std::string> all_gather(Communicator& comm, const std::string& mine);

// Marks this process as failed while an exception passes through the guard's scope (e.g. a
// data error on one rank): at exit, MPI then aborts the job instead of finalizing, so that the
// other ranks stop at once rather than at their next deadline.
class FailureGuard {
 public:
  FailureGuard();
  ~FailureGuard();
  FailureGuard(const FailureGuard&) = delete;
  FailureGuard& operator=(const FailureGuard&) = delete;

 private:
  int uncaught_;
};

}  // namespace realmt::distributed
