// The CUDA backend's own helpers: checked-call macros turn failures into realmt::Error with
// the call, the error name and file:line; the context API agrees with the runtime.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "cuda_test_util.h"

namespace realmt {
namespace {

template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.file()).find("cuda_backend_test.cc"), std::string::npos) << e.file();
    EXPECT_GT(e.line(), 0);
    return e.what();
  }
  ADD_FAILURE() << "no realmt::Error thrown";
  return "";
}

TEST(CudaCheck, RuntimeErrorNamesCallAndError) {
  const std::string msg = error_of([] { REALMT_CUDA_CHECK(cudaErrorInvalidValue); });
  EXPECT_NE(msg.find("cudaErrorInvalidValue"), std::string::npos) << msg;
  EXPECT_NE(msg.find("invalid argument"), std::string::npos) << msg;
  EXPECT_NO_THROW(REALMT_CUDA_CHECK(cudaSuccess));
}

TEST(CudaCheck, RealCallFailureIsThrown) {
  // Without a GPU this fails for lack of a device; with one, for the bad index.
  const std::string msg = error_of([] { REALMT_CUDA_CHECK(cudaSetDevice(1 << 20)); });
  EXPECT_NE(msg.find("cudaSetDevice(1 << 20)"), std::string::npos) << msg;
  // With a working driver the (non-sticky) failure was cleared: the next launch check does
  // not report it again. Without one, every call keeps failing with the driver error.
  if (device_count(DeviceType::kCuda) > 0) {
    EXPECT_NO_THROW(REALMT_CUDA_CHECK_LAUNCH());
  }
}

TEST(CudaCheck, CublasErrorNamesStatus) {
  const std::string msg = error_of([] { REALMT_CUBLAS_CHECK(CUBLAS_STATUS_INVALID_VALUE); });
  EXPECT_NE(msg.find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos) << msg;
  EXPECT_NO_THROW(REALMT_CUBLAS_CHECK(CUBLAS_STATUS_SUCCESS));
}

TEST(CudaContext, AgreesWithRuntimeAndChecksIndices) {
  EXPECT_EQ(cuda::device_count(), device_count(DeviceType::kCuda));
  EXPECT_THROW(cuda::check_device(-1), Error);
  EXPECT_THROW(cuda::check_device(cuda::device_count()), Error);
  EXPECT_THROW(cuda::current_stream(cuda::device_count()), Error);
}

TEST(CudaContext, StreamsAndHandlesAreCreatedOncePerDevice) {
  REALMT_REQUIRE_CUDA();
  const cudaStream_t s = cuda::current_stream(0);
  EXPECT_NE(s, nullptr);
  EXPECT_EQ(cuda::current_stream(0), s);
  cublasHandle_t h = cuda::cublas_handle(0);
  EXPECT_EQ(cuda::cublas_handle(0), h);
  cudaStream_t bound = nullptr;
  REALMT_CUBLAS_CHECK(cublasGetStream(h, &bound));
  EXPECT_EQ(bound, s);
  cublasMath_t mode;
  REALMT_CUBLAS_CHECK(cublasGetMathMode(h, &mode));
  EXPECT_EQ(mode, CUBLAS_DEFAULT_MATH);
  EXPECT_NE(cuda::cublaslt_handle(0), nullptr);
  EXPECT_GE(cuda::device_properties(0).major, 5);
  cuda::synchronize_stream(0);
}

}  // namespace
}  // namespace realmt
