// The CUDA runtime: a caching allocator per device over cudaMalloc/cudaFree, and copies and
// memsets ordered on each device's current stream. Registered from a static initializer
// that touches no CUDA API, so loading realmt on a machine without a GPU or driver costs
// nothing; the device count is queried on first use and is 0 there.
#include <memory>
#include <mutex>
#include <vector>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/runtime.h"

namespace realmt {
namespace {

void* device_alloc(size_t bytes, int device) {
  cuda::set_device(device);
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    // Out of memory is not sticky: clear it and let the caching allocator release its cache,
    // retry, and report with its statistics.
    (void)cudaGetLastError();
    return nullptr;
  }
  REALMT_CUDA_CHECK(err);
  return p;
}

void device_free(void* p, int device) {
  cuda::set_device(device);
  // cudaFree waits for the device, so no work still in flight can use the block.
  REALMT_CUDA_CHECK(cudaFree(p));
}

class CudaRuntime final : public DeviceRuntime {
 public:
  int device_count() const override { return cuda::device_count(); }

  Allocator& allocator(int index) override {
    cuda::check_device(index);
    std::call_once(allocators_once_, [&] {
      const int n = cuda::device_count();
      allocators_.reserve(n);
      for (int i = 0; i < n; ++i)
        allocators_.push_back(
            std::make_unique<CachingAllocator>(device_alloc, device_free, i, "cuda"));
    });
    return *allocators_[index];
  }

  // Host <-> device copies return once the host side may be read or reused: the stream is
  // synchronised after them (a copy from pageable memory waits for earlier work anyway).
  // Device -> device copies on one device stay asynchronous on its stream.
  void copy(void* dst, Device dst_device, const void* src, Device src_device,
            size_t bytes) override {
    if (bytes == 0) return;
    if (dst_device.is_cuda() && src_device.is_cuda()) {
      copy_device_to_device(dst, dst_device.index, src, src_device.index, bytes);
      return;
    }
    const int device = dst_device.is_cuda() ? dst_device.index : src_device.index;
    REALMT_ASSERT(dst_device.is_cuda() != src_device.is_cuda());
    const cudaStream_t stream = cuda::current_stream(device);
    cuda::set_device(device);
    const cudaMemcpyKind kind =
        dst_device.is_cuda() ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    REALMT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    REALMT_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void memset_zero(void* ptr, Device device, size_t bytes) override {
    if (bytes == 0) return;
    const cudaStream_t stream = cuda::current_stream(device.index);
    cuda::set_device(device.index);
    REALMT_CUDA_CHECK(cudaMemsetAsync(ptr, 0, bytes, stream));
  }

  void synchronize(int index) override {
    cuda::check_device(index);
    cuda::set_device(index);
    REALMT_CUDA_CHECK(cudaDeviceSynchronize());
  }

 private:
  static void copy_device_to_device(void* dst, int dst_index, const void* src, int src_index,
                                    size_t bytes) {
    const cudaStream_t src_stream = cuda::current_stream(src_index);
    if (dst_index == src_index) {
      cuda::set_device(src_index);
      REALMT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, src_stream));
      return;
    }
    // Across devices the two streams are not ordered with each other: let the destination's
    // pending work (which may still read dst) finish, copy on the source's stream, and wait
    // for it so the destination's later work sees the data. Rare (NCCL moves gradients).
    cuda::synchronize_stream(dst_index);
    cuda::set_device(src_index);
    REALMT_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_index, src, src_index, bytes, src_stream));
    REALMT_CUDA_CHECK(cudaStreamSynchronize(src_stream));
  }

  std::once_flag allocators_once_;
  std::vector<std::unique_ptr<CachingAllocator>> allocators_;
};

// Intentionally leaked, as the CPU runtime: tensors in static objects may die after main.
CudaRuntime* g_cuda_runtime = [] {
  auto* r = new CudaRuntime();
  register_runtime(DeviceType::kCuda, r);
  return r;
}();

}  // namespace
}  // namespace realmt
