#include "distributed/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "distributed/mpi_runtime.h"
#include "distributed/wait.h"

// Every MPI call is checked: the communicator's error handler is MPI_ERRORS_RETURN, so a
// failure comes back as a code, which this turns into realmt::Error with MPI's text.
#define REALMT_MPI_CHECK(call)                                                                  \
  do {                                                                                          \
    const int realmt_mpi_rc_ = (call);                                                          \
    if (realmt_mpi_rc_ != MPI_SUCCESS) [[unlikely]] {                                           \
      char realmt_mpi_text_[MPI_MAX_ERROR_STRING] = {0};                                        \
      int realmt_mpi_len_ = 0;                                                                  \
      MPI_Error_string(realmt_mpi_rc_, realmt_mpi_text_, &realmt_mpi_len_);                     \
      ::realmt::distributed::mpi::mark_failed();                                                \
      REALMT_FAIL("MPI call {} failed: {} (code {})", #call, realmt_mpi_text_, realmt_mpi_rc_); \
    }                                                                                           \
  } while (0)

namespace realmt::distributed {

namespace {

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(double timeout_s) : timeout_s_(timeout_s) {
    // MPI's own errors come back as codes (REALMT_MPI_CHECK), not as an abort inside MPI.
    REALMT_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    REALMT_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    REALMT_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
    // A communicator of our own (its messages never meet another library's), made with a
    // deadline like every collective.
    std::vector<MPI_Request> requests(1);
    REALMT_MPI_CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &comm_, &requests[0]));
    wait(requests, "joining the job (MPI_Comm_idup)");
    REALMT_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    MPI_Comm local;
    REALMT_MPI_CHECK(
        MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local));
    REALMT_MPI_CHECK(MPI_Comm_rank(local, &local_rank_));
    REALMT_MPI_CHECK(MPI_Comm_free(&local));
  }
  ~MpiCommunicator() override {
    // Not after a failure: freeing a communicator with requests in flight is erroneous, and
    // the process is about to abort the job anyway.
    if (!mpi::failed()) MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string name() const override { return "mpi"; }

  void all_reduce_sum(const Tensor& buffer) override {
    check_defined(buffer, "all_reduce_sum", "buffer");
    if (!buffer.device().is_cpu()) {
      const Tensor host = buffer.to(Device::cpu());
      all_reduce_sum(host);
      buffer.copy_from(host);
      return;
    }
    MPI_Datatype type;
    switch (buffer.dtype()) {
      case DType::kF32: type = MPI_FLOAT; break;
      case DType::kF64: type = MPI_DOUBLE; break;
      default:
        REALMT_FAIL("all_reduce_sum over MPI: {} buffers are not supported (f32 or f64 gradients)",
                    buffer.dtype());
    }
    const size_t elem = dtype_size(buffer.dtype());
    const size_t per_bucket = std::max<size_t>(1, kBucketBytes / elem);
    char* data = static_cast<char*>(buffer.raw());
    const size_t n = static_cast<size_t>(buffer.numel());
    std::vector<MPI_Request> requests;
    for (size_t begin = 0; begin < n; begin += per_bucket) {
      const size_t count = std::min(per_bucket, n - begin);
      requests.emplace_back();
      REALMT_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, data + begin * elem, static_cast<int>(count),
                                      type, MPI_SUM, comm_, &requests.back()));
    }
    wait(requests, format("all-reduce of {} gradient values ({} MB)", n, n * elem / 1e6));
  }

  void all_reduce_sum(std::span<double> values) override {
    small_all_reduce(values.data(), values.size(), MPI_DOUBLE, "all-reduce of loss and token sums");
  }
  void all_reduce_sum(std::span<int64_t> values) override {
    small_all_reduce(values.data(), values.size(), MPI_INT64_T, "all-reduce of counters");
  }

  void broadcast(std::string& bytes, int root) override {
    REALMT_CHECK(root >= 0 && root < size_, "broadcast: root {} is not a rank of a {}-process job",
                 root, size_);
    int64_t length = static_cast<int64_t>(bytes.size());
    std::vector<MPI_Request> requests(1);
    REALMT_MPI_CHECK(MPI_Ibcast(&length, 1, MPI_INT64_T, root, comm_, &requests[0]));
    wait(requests, "broadcast of a length");
    REALMT_CHECK(length >= 0 && length < INT_MAX,
                 "broadcast: {} bytes are too many for one message", length);
    bytes.resize(static_cast<size_t>(length));
    if (length == 0) return;
    REALMT_MPI_CHECK(
        MPI_Ibcast(bytes.data(), static_cast<int>(length), MPI_BYTE, root, comm_, &requests[0]));
    wait(requests, format("broadcast of {} bytes from rank {}", length, root));
  }

  void barrier() override {
    std::vector<MPI_Request> requests(1);
    REALMT_MPI_CHECK(MPI_Ibarrier(comm_, &requests[0]));
    wait(requests, "barrier");
  }

 private:
  void small_all_reduce(void* data, size_t n, MPI_Datatype type, const char* what) {
    if (n == 0) return;
    std::vector<MPI_Request> requests(1);
    REALMT_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(n), type, MPI_SUM, comm_,
                                    &requests[0]));
    wait(requests, what);
  }

  // Polls the requests (MPI_Testall also drives OpenMPI's progress engine) until all are done
  // or the deadline passes. Collective requests cannot be cancelled: on a timeout the process
  // is marked failed and aborts the job at exit.
  void wait(std::vector<MPI_Request>& requests, const std::string& what) {
    int rc = MPI_SUCCESS;
    const bool done = wait_until(
        [&] {
          int flag = 0;
          rc = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag,
                           MPI_STATUSES_IGNORE);
          return rc != MPI_SUCCESS || flag != 0;
        },
        timeout_s_);
    REALMT_MPI_CHECK(rc);
    if (!done) {
      mpi::mark_failed();
      throw CommTimeout(timeout_message(rank_, size_, what, timeout_s_), __FILE__, __LINE__);
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  double timeout_s_;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator(double timeout_s) {
  mpi::init();
  return std::make_unique<MpiCommunicator>(timeout_s);
}

}  // namespace realmt::distributed
