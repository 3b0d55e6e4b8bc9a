#include "convert/npy.h"

#include <cctype>
#include <cstring>
#include <regex>

#include "core/error.h"
#include "core/half.h"

namespace realmt::convert {

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

NpyArray parse_npy(const std::string& b, const std::string& name) {
  REALMT_CHECK(b.size() >= 10 && b.compare(0, 6, "\x93NUMPY") == 0, "{}: not a .npy array", name);
  const int major = static_cast<unsigned char>(b[6]);
  size_t header_len = 0, start = 0;
  REALMT_CHECK(major >= 1 && major <= 3, "{}: .npy format version {} (realmt reads 1 to 3)", name,
               major);
  if (major == 1) {
    header_len = static_cast<unsigned char>(b[8]) |
                 (static_cast<size_t>(static_cast<unsigned char>(b[9])) << 8);
    start = 10;
  } else {
    REALMT_CHECK(b.size() >= 12, "{}: truncated .npy header", name);
    for (int i = 3; i >= 0; --i)
      header_len = (header_len << 8) | static_cast<unsigned char>(b[8 + i]);
    start = 12;
  }
  REALMT_CHECK(start + header_len <= b.size(), "{}: truncated .npy header", name);
  // numpy's own limit: longer headers are not written by it (and std::regex recurses per
  // character).
  REALMT_CHECK(header_len <= 10000, "{}: .npy header of {} bytes (at most 10000 are read)", name,
               header_len);
  const std::string header = b.substr(start, header_len);
  NpyArray a;
  std::smatch m;
  REALMT_CHECK(std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']*)'")),
               "{}: .npy header without descr: {}", name, header);
  a.descr = m[1];
  REALMT_CHECK(std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*(True|False)")),
               "{}: .npy header without fortran_order: {}", name, header);
  REALMT_CHECK(m[1] == "False", "{}: Fortran-order arrays are not read; save it in C order", name);
  REALMT_CHECK(std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")),
               "{}: .npy header without shape: {}", name, header);
  const std::string dims = m[1];
  const std::regex number("[0-9]+");
  uint64_t numel = 1;
  bool overflow = false;
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number);
       it != std::sregex_iterator(); ++it) {
    REALMT_CHECK(it->length() <= 18 && a.shape.size() < static_cast<size_t>(kMaxDims),
                 "{}: .npy shape ({}) too large", name, dims);
    a.shape.push_back(std::stoll(it->str()));
    overflow =
        overflow || __builtin_mul_overflow(numel, static_cast<uint64_t>(a.shape.back()), &numel);
  }
  REALMT_CHECK(a.descr.size() >= 3 && a.descr.size() <= 4 &&
                   std::isdigit(static_cast<unsigned char>(a.descr[2])) &&
                   std::isdigit(static_cast<unsigned char>(a.descr.back())),
               "{}: unknown dtype '{}'", name, a.descr);
  const size_t item = std::stoul(a.descr.substr(2));
  REALMT_CHECK(a.descr[0] != '>' || item == 1, "{}: big-endian arrays ({}) are not read", name,
               a.descr);
  uint64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(numel, item, &bytes);
  REALMT_CHECK(!overflow && b.size() - start - header_len == bytes,
               "{}: {} data bytes for shape ({}) of elements of {} bytes", name,
               b.size() - start - header_len, dims, item);
  a.data = b.substr(start + header_len);
  return a;
}

Tensor npy_to_f32(const NpyArray& a, const std::string& name) {
  std::vector<int64_t> dims = a.shape;
  Tensor t = Tensor::empty(Shape(dims), DType::kF32);
  float* out = t.data<float>();
  const int64_t n = a.numel();
  const std::string kind = a.descr.substr(1);
  if (kind == "f4") {
    std::memcpy(out, a.data.data(), static_cast<size_t>(n) * 4);
  } else if (kind == "f2") {
    for (int64_t i = 0; i < n; ++i) {
      Half h;
      std::memcpy(&h.bits, a.data.data() + 2 * i, 2);
      out[i] = static_cast<float>(h);
    }
  } else if (kind == "f8") {
    for (int64_t i = 0; i < n; ++i) {
      double d;
      std::memcpy(&d, a.data.data() + 8 * i, 8);
      out[i] = static_cast<float>(d);
    }
  } else {
    REALMT_FAIL("{}: dtype '{}' where a floating array belongs (f2, f4 or f8)", name, a.descr);
  }
  return t;
}

std::string npy_to_text(const NpyArray& a, const std::string& name) {
  REALMT_CHECK(a.descr.size() >= 3 && a.descr.substr(2) == "1",
               "{}: dtype '{}' where 8-bit text belongs", name, a.descr);
  const size_t end = a.data.find('\0');
  return a.data.substr(0, end);
}

namespace {

// magic, version 1.0, the header's length, the header dict padded with spaces to a multiple of
// 64 bytes in all and ended by a newline (numpy's layout), then the data.
std::string npy(const std::string& descr, const std::vector<int64_t>& shape, const void* data,
                size_t bytes) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);
  else if (shape.size() == 1)
    dims.resize(dims.size() - 1);
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  REALMT_CHECK(header.size() < 65536, ".npy header of {} bytes", header.size());
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

}  // namespace

std::string npy_f32(const Tensor& t) {
  REALMT_CHECK(t.dtype() == DType::kF32 && t.device().type == DeviceType::kCpu,
               "npy_f32: an f32 host tensor, got {}", t);
  return npy("<f4", t.shape().vec(), t.raw(), t.nbytes());
}

std::string npy_text(const std::string& text) {
  const std::string bytes = text + '\0';
  return npy("<i1", {static_cast<int64_t>(bytes.size())}, bytes.data(), bytes.size());
}

}  // namespace realmt::convert
