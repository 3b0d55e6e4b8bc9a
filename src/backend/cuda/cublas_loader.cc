// cuBLAS and cuBLASLt opened on first use (dlopen) instead of linked. Linking them costs every
// process about 150 MB of resident memory when it starts (the dynamic loader relocates
// libcublasLt, one of the largest libraries there is), also on machines without a GPU and in
// runs that never touch one: realmt-translate on the CPU would carry them for nothing.
//
// The few cuBLAS entry points realmt calls are defined here with cuBLAS's own prototypes (from
// its headers, so a changed signature fails the build) and forward to the library, opened by
// soname (REALMT_CUBLAS_SONAME, the toolkit realmt was built with) with the toolkit's library
// folder as a fallback. The definitions are hidden: they serve librealmt_core only, and a
// program that links cuBLAS itself (the CUDA tests) still gets the real symbols.
// To call another cuBLAS function, add its forwarder below.
#include <dlfcn.h>

#include <cublasLt.h>
#include <cublas_v2.h>

#include <string>

#include "core/error.h"

namespace realmt::cuda {
namespace {

void* open_library(const char* soname) {
  void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr)
    lib = dlopen((std::string(REALMT_CUDA_LIBRARY_DIR) + "/" + soname).c_str(),
                 RTLD_NOW | RTLD_LOCAL);
  REALMT_CHECK(
      lib != nullptr,
      "cannot load {} ({}): the CUDA toolkit's cuBLAS is needed on a GPU; put its folder on "
      "LD_LIBRARY_PATH",
      soname, dlerror());
  return lib;
}

void* cublas_library() {
  static void* const lib = open_library(REALMT_CUBLAS_SONAME);
  return lib;
}

void* cublaslt_library() {
  static void* const lib = open_library(REALMT_CUBLASLT_SONAME);
  return lib;
}

template <typename F>
F* find(void* lib, const char* name) {
  void* f = dlsym(lib, name);
  REALMT_CHECK(f != nullptr,
               "cuBLAS has no function {} ({}): realmt was built with a newer toolkit", name,
               dlerror());
  return reinterpret_cast<F*>(f);
}

}  // namespace
}  // namespace realmt::cuda

// Each forwarder looks its function up once (a function-local static: thread-safe).
#define REALMT_CUBLAS_FORWARD(lib, name) \
  static auto* const f = realmt::cuda::find<decltype(name)>(realmt::cuda::lib(), #name)
#define REALMT_HIDDEN __attribute__((visibility("hidden")))

extern "C" {

REALMT_HIDDEN cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  REALMT_CUBLAS_FORWARD(cublas_library, cublasCreate_v2);
  return f(handle);
}

REALMT_HIDDEN cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  REALMT_CUBLAS_FORWARD(cublas_library, cublasDestroy_v2);
  return f(handle);
}

REALMT_HIDDEN cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  REALMT_CUBLAS_FORWARD(cublas_library, cublasSetStream_v2);
  return f(handle, stream);
}

REALMT_HIDDEN cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* stream) {
  REALMT_CUBLAS_FORWARD(cublas_library, cublasGetStream_v2);
  return f(handle, stream);
}

REALMT_HIDDEN cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  REALMT_CUBLAS_FORWARD(cublas_library, cublasSetMathMode);
  return f(handle, mode);
}

REALMT_HIDDEN cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  REALMT_CUBLAS_FORWARD(cublas_library, cublasGetMathMode);
  return f(handle, mode);
}

REALMT_HIDDEN const char* cublasGetStatusName(cublasStatus_t status) {
  REALMT_CUBLAS_FORWARD(cublas_library, cublasGetStatusName);
  return f(status);
}

REALMT_HIDDEN const char* cublasGetStatusString(cublasStatus_t status) {
  REALMT_CUBLAS_FORWARD(cublas_library, cublasGetStatusString);
  return f(status);
}

REALMT_HIDDEN cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* a, cudaDataType a_type, int lda, long long int stride_a,
    const void* b, cudaDataType b_type, int ldb, long long int stride_b, const void* beta, void* c,
    cudaDataType c_type, int ldc, long long int stride_c, int batch_count,
    cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  using Fn = cublasStatus_t(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, long long int, const void*,
                            cudaDataType, int, long long int, const void*, void*, cudaDataType, int,
                            long long int, int, cublasComputeType_t, cublasGemmAlgo_t);
  // The header also declares a C++ overload (cudaDataType compute type): name the C one's type.
  static Fn* const f =
      realmt::cuda::find<Fn>(realmt::cuda::cublas_library(), "cublasGemmStridedBatchedEx");
  return f(handle, transa, transb, m, n, k, alpha, a, a_type, lda, stride_a, b, b_type, ldb,
           stride_b, beta, c, c_type, ldc, stride_c, batch_count, compute, algo);
}

REALMT_HIDDEN cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  REALMT_CUBLAS_FORWARD(cublaslt_library, cublasLtCreate);
  return f(handle);
}

REALMT_HIDDEN cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  REALMT_CUBLAS_FORWARD(cublaslt_library, cublasLtDestroy);
  return f(handle);
}

}  // extern "C"
