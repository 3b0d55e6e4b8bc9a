// The CPU runtime: 64-byte aligned host memory behind a caching allocator.
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "core/runtime.h"

namespace realmt {
namespace {

void* host_alloc(size_t bytes, int) {
  void* p = nullptr;
  // 64-byte alignment: one cache line, and what AVX-512 loads like.
  if (posix_memalign(&p, 64, bytes) != 0) return nullptr;
  return p;
}
void host_free(void* p, int) { std::free(p); }

class CpuRuntime final : public DeviceRuntime {
 public:
  int device_count() const override { return 1; }
  Allocator& allocator(int index) override {
    REALMT_CHECK(index == 0, "there is one CPU device (cpu), not cpu:{}", index);
    return allocator_;
  }
  void copy(void* dst, Device dst_device, const void* src, Device src_device,
            size_t bytes) override {
    REALMT_ASSERT(dst_device.is_cpu() && src_device.is_cpu());
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void memset_zero(void* ptr, Device, size_t bytes) override {
    if (bytes) std::memset(ptr, 0, bytes);
  }
  void synchronize(int) override {}

 private:
  CachingAllocator allocator_{host_alloc, host_free, 0, "cpu"};
};

// Intentionally leaked: tensors held in static objects may be freed after main returns.
CpuRuntime* g_cpu_runtime = [] {
  auto* r = new CpuRuntime();
  register_runtime(DeviceType::kCpu, r);
  return r;
}();

}  // namespace
}  // namespace realmt
