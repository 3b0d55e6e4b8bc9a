// Devices: "cpu" or "cuda:N".
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace realmt {

enum class DeviceType : uint8_t { kCpu = 0, kCuda = 1 };
inline constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::kCpu;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {DeviceType::kCuda, index}; }
  bool is_cpu() const { return type == DeviceType::kCpu; }
  bool is_cuda() const { return type == DeviceType::kCuda; }
  std::string str() const;
  bool operator==(const Device&) const = default;
};

// Parses "cpu", "cuda", "cuda:N", and "gpu:N" or a bare "N" for cuda:N as Marian writes them.
Device parse_device(const std::string& text);
std::ostream& operator<<(std::ostream& os, const Device& d);
std::ostream& operator<<(std::ostream& os, DeviceType t);

}  // namespace realmt
