#include "core/runtime.h"

#include <array>

#include "core/error.h"

namespace realmt {

namespace {
std::array<DeviceRuntime*, kNumDeviceTypes>& runtimes() {
  static std::array<DeviceRuntime*, kNumDeviceTypes> r{};
  return r;
}
}  // namespace

void register_runtime(DeviceType type, DeviceRuntime* runtime) {
  runtimes()[static_cast<int>(type)] = runtime;
}

bool runtime_available(DeviceType type) { return runtimes()[static_cast<int>(type)] != nullptr; }

DeviceRuntime& runtime_for(DeviceType type) {
  DeviceRuntime* r = runtimes()[static_cast<int>(type)];
  REALMT_CHECK(r != nullptr,
               "device type {} is not available: this build of realmt has no {} backend "
               "(configure with -DREALMT_CUDA=ON on a machine with the CUDA toolkit)",
               type, type);
  return *r;
}

int device_count(DeviceType type) {
  return runtime_available(type) ? runtime_for(type).device_count() : 0;
}

}  // namespace realmt
