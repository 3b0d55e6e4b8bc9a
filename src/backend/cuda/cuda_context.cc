#include "backend/cuda/cuda_context.h"

#include <memory>
#include <mutex>

#include "backend/cuda/cuda_check.h"
#include "core/log.h"

namespace realmt::cuda {
namespace {

struct DeviceContext {
  std::once_flag stream_once, cublas_once, cublaslt_once, props_once;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cublasLtHandle_t cublaslt = nullptr;
  cudaDeviceProp props{};
};

struct Devices {
  int count = 0;
  // Intentionally leaked with the rest of this state: destroying streams and handles from
  // static destructors races the CUDA runtime's own teardown at exit.
  DeviceContext* contexts = nullptr;
};

int query_device_count() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err == cudaSuccess) return n;
  (void)cudaGetLastError();  // clear it: having no GPU is not an error of a later call
  // No GPU, or no (new enough) driver: the normal case on CPU machines. Anything else still
  // means "no usable device", but deserves a line in the log.
  if (err != cudaErrorNoDevice && err != cudaErrorInsufficientDriver)
    log::warn("CUDA: no usable device ({}: {}); running on the CPU only", cudaGetErrorName(err),
              cudaGetErrorString(err));
  return 0;
}

Devices& devices() {
  // Function-local static: first use happens after static initialisation, never during it.
  static Devices* d = [] {
    auto* devs = new Devices();
    devs->count = query_device_count();
    devs->contexts = new DeviceContext[devs->count > 0 ? devs->count : 1];
    return devs;
  }();
  return *d;
}

DeviceContext& context(int device) {
  check_device(device);
  return devices().contexts[device];
}

}  // namespace

int device_count() { return devices().count; }

void check_device(int device) {
  const int n = devices().count;
  REALMT_CHECK(0 <= device && device < n, "cuda:{} does not exist: {} CUDA device{} visible{}",
               device, n, n == 1 ? " is" : "s are",
               n == 0 ? " (no GPU or no NVIDIA driver on this machine; use --devices cpu)" : "");
}

void set_device(int device) {
  int current = -1;
  REALMT_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device) REALMT_CUDA_CHECK(cudaSetDevice(device));
}

cudaStream_t current_stream(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.stream_once, [&] {
    set_device(device);
    // Non-blocking: the legacy default stream (used by anything outside realmt) does not
    // serialise with it.
    REALMT_CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  });
  return c.stream;
}

cublasHandle_t cublas_handle(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.cublas_once, [&] {
    const cudaStream_t stream = current_stream(device);
    set_device(device);
    cublasHandle_t h = nullptr;
    REALMT_CUBLAS_CHECK(cublasCreate(&h));
    REALMT_CUBLAS_CHECK(cublasSetStream(h, stream));
    // Plain f32 math: results comparable with the CPU reference. TF32 is chosen per call
    // through the compute type, never through the handle.
    REALMT_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    c.cublas = h;
  });
  return c.cublas;
}

cublasLtHandle_t cublaslt_handle(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.cublaslt_once, [&] {
    set_device(device);
    cublasLtHandle_t h = nullptr;
    REALMT_CUBLAS_CHECK(cublasLtCreate(&h));
    c.cublaslt = h;
  });
  return c.cublaslt;
}

const cudaDeviceProp& device_properties(int device) {
  DeviceContext& c = context(device);
  std::call_once(c.props_once,
                 [&] { REALMT_CUDA_CHECK(cudaGetDeviceProperties(&c.props, device)); });
  return c.props;
}

void synchronize_stream(int device) {
  const cudaStream_t stream = current_stream(device);
  REALMT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace realmt::cuda
