#include "convert/zip_writer.h"

#include <zlib.h>

#include <cstdint>

#include "core/error.h"

namespace realmt::convert {
namespace {

void put(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& members) {
  REALMT_CHECK(members.size() < 0xffff, "zip: {} members (at most 65534 without ZIP64)", members.size());
  std::string out, central;
  for (const auto& [name, bytes] : members) {
    REALMT_CHECK(bytes.size() < 0xffffffffull && out.size() < 0xffffffffull,
                 "zip: member '{}' ({} bytes) needs ZIP64, which is not written", name, bytes.size());
    const auto crc = static_cast<uint32_t>(crc32_z(0L, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
    const uint64_t offset = out.size();
    // Local header: signature, version 2.0, flags, method 0 (stored), time, date, crc, sizes, name.
    put(out, 0x04034b50, 4);
    put(out, 20, 2);
    put(out, 0, 2);
    put(out, 0, 2);
    put(out, 0, 4);
    put(out, crc, 4);
    put(out, bytes.size(), 4);
    put(out, bytes.size(), 4);
    put(out, name.size(), 2);
    put(out, 0, 2);
    out += name;
    out += bytes;
    // Central directory entry: the same, plus where the local header is.
    put(central, 0x02014b50, 4);
    put(central, 20, 2);
    put(central, 20, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 4);
    put(central, crc, 4);
    put(central, bytes.size(), 4);
    put(central, bytes.size(), 4);
    put(central, name.size(), 2);
    put(central, 0, 2);  // extra
    put(central, 0, 2);  // comment
    put(central, 0, 2);  // disk
    put(central, 0, 2);  // internal attributes
    put(central, 0, 4);  // external attributes
    put(central, offset, 4);
    central += name;
  }
  const uint64_t central_offset = out.size();
  out += central;
  put(out, 0x06054b50, 4);
  put(out, 0, 2);
  put(out, 0, 2);
  put(out, members.size(), 2);
  put(out, members.size(), 2);
  put(out, central.size(), 4);
  put(out, central_offset, 4);
  put(out, 0, 2);
  return out;
}

}  // namespace realmt::convert
