#include "convert/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "common/atomic_file.h"
#include "core/error.h"

namespace realmt::convert {
namespace {

// Little-endian fields at offsets of a byte buffer (the zip format is little-endian).
uint64_t le(const std::string& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

std::string read_bytes(const InputFile& in, uint64_t offset, uint64_t n) {
  std::string b(n, '\0');
  if (n > 0) in.read_at(offset, b.data(), n);
  return b;
}

constexpr uint32_t kEndOfCentralDirectory = 0x06054b50, kZip64Locator = 0x07064b50,
                   kZip64End = 0x06064b50;
constexpr uint32_t kCentralHeader = 0x02014b50, kLocalHeader = 0x04034b50;

}  // namespace

ZipReader::ZipReader(const std::string& path)
    : path_(path), in_(std::make_unique<InputFile>(path)) {
  const uint64_t size = in_->size();
  REALMT_CHECK(size >= 22, "{}: not a zip archive ({} bytes)", path, size);
  // The end-of-central-directory record is in the last 22 + 65535 bytes (after it: a comment).
  const uint64_t tail_len = std::min<uint64_t>(size, 22 + 65535);
  const std::string tail = read_bytes(*in_, size - tail_len, tail_len);
  int64_t eocd = -1;
  for (int64_t i = static_cast<int64_t>(tail_len) - 22; i >= 0; --i)
    if (le(tail, static_cast<size_t>(i), 4) == kEndOfCentralDirectory) {
      eocd = i;
      break;
    }
  REALMT_CHECK(eocd >= 0, "{}: not a zip archive (no end of central directory)", path);
  uint64_t entries = le(tail, eocd + 10, 2), cd_size = le(tail, eocd + 12, 4),
           cd_offset = le(tail, eocd + 16, 4);
  if ((entries == 0xffff || cd_size == 0xffffffff || cd_offset == 0xffffffff) && eocd >= 20 &&
      le(tail, eocd - 20, 4) == kZip64Locator) {
    // ZIP64: the locator gives the ZIP64 end record, which has the 64-bit fields.
    const uint64_t z64 = le(tail, eocd - 20 + 8, 8);
    REALMT_CHECK(z64 <= size && 56 <= size - z64, "{}: ZIP64 end record at {} outside the file",
                 path, z64);
    const std::string rec = read_bytes(*in_, z64, 56);
    REALMT_CHECK(le(rec, 0, 4) == kZip64End, "{}: bad ZIP64 end record", path);
    entries = le(rec, 32, 8);
    cd_size = le(rec, 40, 8);
    cd_offset = le(rec, 48, 8);
  }
  REALMT_CHECK(cd_offset <= size && cd_size <= size - cd_offset,
               "{}: central directory outside the file", path);
  const std::string cd = read_bytes(*in_, cd_offset, cd_size);
  size_t at = 0;
  for (uint64_t e = 0; e < entries; ++e) {
    REALMT_CHECK(at + 46 <= cd.size() && le(cd, at, 4) == kCentralHeader,
                 "{}: damaged central directory (entry {})", path, e);
    ZipMember m;
    m.method = static_cast<uint16_t>(le(cd, at + 10, 2));
    m.crc32 = static_cast<uint32_t>(le(cd, at + 16, 4));
    m.compressed_size = le(cd, at + 20, 4);
    m.size = le(cd, at + 24, 4);
    const size_t name_len = le(cd, at + 28, 2), extra_len = le(cd, at + 30, 2),
                 comment_len = le(cd, at + 32, 2);
    m.header_offset = le(cd, at + 42, 4);
    REALMT_CHECK(at + 46 + name_len + extra_len + comment_len <= cd.size(),
                 "{}: damaged central directory (entry {})", path, e);
    m.name = cd.substr(at + 46, name_len);
    // ZIP64 extended information (id 1): the 64-bit values of the fields that hold 0xffffffff.
    size_t x = at + 46 + name_len;
    const size_t x_end = x + extra_len;
    while (x + 4 <= x_end) {
      const uint64_t id = le(cd, x, 2), len = le(cd, x + 2, 2);
      size_t v = x + 4;
      const size_t field_end =
          std::min<size_t>(x + 4 + len, x_end);  // a length past the extra is cut
      if (id == 1) {
        for (uint64_t* field : {&m.size, &m.compressed_size, &m.header_offset})
          if (*field == 0xffffffff && v + 8 <= field_end) {
            *field = le(cd, v, 8);
            v += 8;
          }
      }
      x += 4 + len;
    }
    members_.push_back(std::move(m));
    at += 46 + name_len + extra_len + comment_len;
  }
}

ZipReader::~ZipReader() = default;
ZipReader::ZipReader(ZipReader&&) noexcept = default;

const ZipMember* ZipReader::find(const std::string& name) const {
  for (const ZipMember& m : members_)
    if (m.name == name) return &m;
  return nullptr;
}

std::string ZipReader::read(const ZipMember& m) const {
  const uint64_t size = in_->size();
  REALMT_CHECK(m.header_offset <= size && 30 <= size - m.header_offset,
               "{}: member '{}' outside the file", path_, m.name);
  const std::string local = read_bytes(*in_, m.header_offset, 30);
  REALMT_CHECK(le(local, 0, 4) == kLocalHeader, "{}: member '{}' has no local header", path_,
               m.name);
  const uint64_t data = m.header_offset + 30 + le(local, 26, 2) + le(local, 28, 2);
  REALMT_CHECK(data <= size && m.compressed_size <= size - data,
               "{}: member '{}' ({} bytes) runs past the file", path_, m.name, m.compressed_size);
  std::string raw = read_bytes(*in_, data, m.compressed_size);
  std::string out;
  if (m.method == 0) {
    REALMT_CHECK(m.size == m.compressed_size, "{}: stored member '{}' has two sizes", path_,
                 m.name);
    out = std::move(raw);
  } else if (m.method == 8) {
    // deflate expands at most 1032:1; a larger size is damage (and would allocate at will).
    REALMT_CHECK(m.size / 1032 <= m.compressed_size,
                 "{}: member '{}' claims {} bytes from {} deflated ones", path_, m.name, m.size,
                 m.compressed_size);
    out.assign(m.size, '\0');
    z_stream z{};
    REALMT_CHECK(inflateInit2(&z, -MAX_WBITS) == Z_OK, "{}: zlib cannot start inflating", path_);
    z.next_in = reinterpret_cast<Bytef*>(raw.data());
    z.avail_in = static_cast<uInt>(raw.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_FINISH);
    const uint64_t produced = z.total_out;
    inflateEnd(&z);
    REALMT_CHECK(rc == Z_STREAM_END && produced == m.size,
                 "{}: member '{}' does not inflate to its {} bytes", path_, m.name, m.size);
  } else {
    REALMT_FAIL("{}: member '{}' uses compression method {} (only stored and deflated are read)",
                path_, m.name, m.method);
  }
  const uint32_t crc =
      static_cast<uint32_t>(crc32_z(0L, reinterpret_cast<const Bytef*>(out.data()), out.size()));
  REALMT_CHECK(crc == m.crc32, "{}: member '{}' fails its CRC-32 check (damaged archive)", path_,
               m.name);
  return out;
}

}  // namespace realmt::convert
