// A device runtime: allocation, copies and synchronisation for one kind of device.
// The CPU runtime is built in; backend/cuda registers the CUDA one when it is compiled.
#pragma once

#include <cstddef>

#include "core/allocator.h"
#include "core/device.h"

namespace realmt {

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;
  virtual int device_count() const = 0;
  virtual Allocator& allocator(int index) = 0;
  // Copies bytes between two devices of which at least one is of this runtime's type.
  virtual void copy(void* dst, Device dst_device, const void* src, Device src_device,
                    size_t bytes) = 0;
  virtual void memset_zero(void* ptr, Device device, size_t bytes) = 0;
  virtual void synchronize(int index) = 0;
};

// Throws a clear error when the runtime is not built in (CUDA off) or has no such device.
DeviceRuntime& runtime_for(DeviceType type);
bool runtime_available(DeviceType type);
// Called by a backend's static initializer.
void register_runtime(DeviceType type, DeviceRuntime* runtime);
// Number of visible devices of a type (0 when the backend is not built or no device is there).
int device_count(DeviceType type);

}  // namespace realmt
