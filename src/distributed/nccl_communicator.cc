#include "distributed/nccl_communicator.h"

#include <cstring>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/nccl_check.h"
#include "distributed/mpi_runtime.h"
#include "distributed/wait.h"

namespace realmt::distributed {

namespace {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::kF32: return ncclFloat32;
    case DType::kF64: return ncclFloat64;
    case DType::kF16: return ncclFloat16;
    case DType::kBF16: return ncclBfloat16;
    default: REALMT_FAIL("all_reduce_sum over NCCL: {} buffers are not supported", t);
  }
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(std::unique_ptr<Communicator> host, int device, double timeout_s)
      : host_(std::move(host)), device_(device), timeout_s_(timeout_s) {
    cuda::check_device(device_);
    cuda::set_device(device_);
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    if (host_->rank() == 0) REALMT_NCCL_CHECK(ncclGetUniqueId(&id));
    std::string bytes(reinterpret_cast<const char*>(&id), sizeof id);
    host_->broadcast(bytes, 0);
    REALMT_CHECK(bytes.size() == sizeof id, "NCCL id of {} bytes received, expected {}",
                 bytes.size(), sizeof id);
    std::memcpy(&id, bytes.data(), sizeof id);
    // Non-blocking: the join, like every later call, returns at once (ncclInProgress) and is
    // completed by polling ncclCommGetAsyncError, so that it can have a deadline.
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const ncclResult_t r =
        ncclCommInitRankConfig(&comm_, host_->size(), id, host_->rank(), &config);
    if (r != ncclInProgress) REALMT_NCCL_CHECK(r);
    settle(format("joining the NCCL communicator on cuda:{}", device_));
  }

  ~NcclCommunicator() override {
    if (!comm_) return;
    // After a failure only abort is safe; otherwise abort is still the simplest correct end of
    // a communicator whose collectives have all completed (nothing is left to flush).
    ncclCommAbort(comm_);
  }

  int rank() const override { return host_->rank(); }
  int size() const override { return host_->size(); }
  int local_rank() const override { return host_->local_rank(); }
  std::string name() const override { return "nccl"; }

  void all_reduce_sum(const Tensor& buffer) override {
    check_defined(buffer, "all_reduce_sum", "buffer");
    if (!buffer.device().is_cuda()) {
      host_->all_reduce_sum(buffer);
      return;
    }
    REALMT_CHECK(buffer.device().index == device_,
                 "all_reduce_sum: buffer on {}, communicator on cuda:{}", buffer.device(), device_);
    cuda::set_device(device_);
    cudaStream_t stream = cuda::current_stream(device_);
    const ncclResult_t r =
        ncclAllReduce(buffer.raw(), buffer.raw(), static_cast<size_t>(buffer.numel()),
                      nccl_type(buffer.dtype()), ncclSum, comm_, stream);
    if (r != ncclInProgress) REALMT_NCCL_CHECK(r);
    const std::string what = format("NCCL all-reduce of {} gradient values ({} MB)", buffer.numel(),
                                    buffer.nbytes() / 1e6);
    settle(what);
    // The kernel is enqueued; wait for the stream with the deadline (a dead peer leaves it
    // spinning for ever). cudaStreamQuery also reports earlier kernels' faults.
    cudaError_t status = cudaSuccess;
    ncclResult_t async = ncclSuccess;
    const bool done = wait_until(
        [&] {
          status = cudaStreamQuery(stream);
          if (status != cudaErrorNotReady) return true;
          ncclCommGetAsyncError(comm_, &async);
          return async != ncclSuccess && async != ncclInProgress;
        },
        timeout_s_);
    if (!done) fail(timeout_message(rank(), size(), what, timeout_s_), true);
    if (async != ncclSuccess && async != ncclInProgress)
      fail(format("{} failed: {} (set NCCL_DEBUG=WARN for details)", what,
                  ncclGetErrorString(async)),
           false);
    REALMT_CUDA_CHECK(status);
  }

  void all_reduce_sum(std::span<double> values) override { host_->all_reduce_sum(values); }
  void all_reduce_sum(std::span<int64_t> values) override { host_->all_reduce_sum(values); }
  void broadcast(std::string& bytes, int root) override { host_->broadcast(bytes, root); }
  void barrier() override { host_->barrier(); }

 private:
  // Waits until the last non-blocking NCCL call has left ncclInProgress.
  void settle(const std::string& what) {
    ncclResult_t state = ncclInProgress;
    const bool done = wait_until(
        [&] {
          if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess) state = ncclSystemError;
          return state != ncclInProgress;
        },
        timeout_s_);
    if (!done) fail(timeout_message(rank(), size(), what, timeout_s_), true);
    if (state != ncclSuccess)
      fail(format("{} failed: {} (set NCCL_DEBUG=WARN for details)", what,
                  ncclGetErrorString(state)),
           false);
  }

  [[noreturn]] void fail(const std::string& message, bool timeout) {
    mpi::mark_failed();
    // Abort releases the GPU from kernels that wait for a peer that will never come.
    ncclCommAbort(comm_);
    comm_ = nullptr;
    if (timeout) throw CommTimeout(message, __FILE__, __LINE__);
    throw Error(message, __FILE__, __LINE__);
  }

  std::unique_ptr<Communicator> host_;
  int device_;
  double timeout_s_;
  ncclComm_t comm_ = nullptr;
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(std::unique_ptr<Communicator> host, int device,
                                                     double timeout_s) {
  return std::make_unique<NcclCommunicator>(std::move(host), device, timeout_s);
}

}  // namespace realmt::distributed
