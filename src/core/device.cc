#include "core/device.h"

#include <cstdlib>

#include "core/error.h"

namespace realmt {

std::string Device::str() const {
  return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(index);
}

Device parse_device(const std::string& text) {
  if (text == "cpu") return Device::cpu();
  for (const char* prefix : {"cuda", "gpu"}) {
    const std::string p(prefix);
    if (text == p) return Device::cuda(0);
    if (text.rfind(p + ":", 0) == 0) {
      const std::string num = text.substr(p.size() + 1);
      char* end = nullptr;
      const long n = std::strtol(num.c_str(), &end, 10);
      REALMT_CHECK(!num.empty() && *end == '\0' && n >= 0 && n < 1024,
                   "bad device '{}': the index must be a small non-negative integer", text);
      return Device::cuda(static_cast<int>(n));
    }
  }
  REALMT_FAIL("unknown device '{}' (use cpu, cuda:N or gpu:N)", text);
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }
std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << (t == DeviceType::kCpu ? "cpu" : "cuda");
}

}  // namespace realmt
