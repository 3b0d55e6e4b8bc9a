#include "core/device.h"

#include <cctype>
#include <cstdlib>

#include "core/error.h"

namespace realmt {

std::string Device::str() const {
  return is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(index);
}

namespace {

// The N of "cuda:N", "gpu:N" or "N" (`text` names the whole device in the error).
int cuda_index(const std::string& num, const std::string& text) {
  char* end = nullptr;
  const long n = std::strtol(num.c_str(), &end, 10);
  REALMT_CHECK(
      !num.empty() && std::isdigit(static_cast<unsigned char>(num[0])) && *end == '\0' && n < 1024,
      "bad device '{}': the index must be a small non-negative integer", text);
  return static_cast<int>(n);
}

}  // namespace

Device parse_device(const std::string& text) {
  if (text == "cpu") return Device::cpu();
  // A bare index is a GPU, as in Marian's --devices 0 1.
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])))
    return Device::cuda(cuda_index(text, text));
  for (const char* prefix : {"cuda", "gpu"}) {
    const std::string p(prefix);
    if (text == p) return Device::cuda(0);
    if (text.rfind(p + ":", 0) == 0)
      return Device::cuda(cuda_index(text.substr(p.size() + 1), text));
  }
  REALMT_FAIL("unknown device '{}' (use cpu, cuda:N, gpu:N or N)", text);
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }
std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << (t == DeviceType::kCpu ? "cpu" : "cuda");
}

}  // namespace realmt
