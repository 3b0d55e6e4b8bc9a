#include "convert/zip_writer.h"

#include <zlib.h>

#include <cstdint>

#include "core/error.h"

namespace realmt::convert {
namespace {

void put(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// The fields a local header and its central directory entry share: flags, method 0 (stored),
// time, date, crc, both sizes (equal: stored), the name's length and no extra field.
void put_member_fields(std::string& out, uint32_t crc, uint64_t size, size_t name_size) {
  put(out, 0, 2);
  put(out, 0, 2);
  put(out, 0, 4);
  put(out, crc, 4);
  put(out, size, 4);
  put(out, size, 4);
  put(out, name_size, 2);
  put(out, 0, 2);
}

}  // namespace

std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& members) {
  REALMT_CHECK(members.size() < 0xffff, "zip: {} members (at most 65534 without ZIP64)",
               members.size());
  std::string out, central;
  for (const auto& [name, bytes] : members) {
    REALMT_CHECK(bytes.size() < 0xffffffffull && out.size() < 0xffffffffull,
                 "zip: member '{}' ({} bytes) needs ZIP64, which is not written", name,
                 bytes.size());
    const auto crc = static_cast<uint32_t>(
        crc32_z(0L, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
    const uint64_t offset = out.size();
    // Local header: signature, version 2.0, the shared fields, the name, then the bytes.
    put(out, 0x04034b50, 4);
    put(out, 20, 2);
    put_member_fields(out, crc, bytes.size(), name.size());
    out += name;
    out += bytes;
    // Central directory entry: signature, versions made by and needed, the same fields, and where
    // the local header is.
    put(central, 0x02014b50, 4);
    put(central, 20, 2);
    put(central, 20, 2);
    put_member_fields(central, crc, bytes.size(), name.size());
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
