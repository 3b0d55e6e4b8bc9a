// Reading zip archives, as numpy's .npz (Marian models) and PyTorch's torch.save files hold
// their arrays: the central directory (ZIP64 too), and each member stored or deflated (zlib).
// Every error names the archive and, where there is one, the member.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace realmt {
class InputFile;
}

namespace realmt::convert {

struct ZipMember {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint64_t compressed_size = 0, size = 0;
  uint64_t header_offset = 0;  // of the member's local header
  uint32_t crc32 = 0;
};

class ZipReader {
 public:
  explicit ZipReader(const std::string& path);
  ~ZipReader();
  ZipReader(ZipReader&&) noexcept;

  const std::string& path() const { return path_; }
  const std::vector<ZipMember>& members() const { return members_; }
  // The member called `name`, or nullptr.
  const ZipMember* find(const std::string& name) const;
  // A member's bytes, inflated when deflated, checked against its CRC-32.
  std::string read(const ZipMember& member) const;

 private:
  std::string path_;
  std::unique_ptr<InputFile> in_;
  std::vector<ZipMember> members_;
};

}  // namespace realmt::convert
