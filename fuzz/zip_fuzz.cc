// The zip reader (realmt-convert: numpy's .npz, torch.save archives) on arbitrary files: the
// central directory (ZIP64 too) and every member read, stored or deflated, against its CRC-32.
#include "convert/zip_reader.h"
#include "core/error.h"
#include "fuzz_util.h"

using namespace realmt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::as_file(data, size, "zip");
  try {
    const convert::ZipReader zip(path);
    for (const convert::ZipMember& m : zip.members()) {
      REALMT_FUZZ_CHECK(zip.find(m.name) != nullptr);
      try {
        const std::string bytes = zip.read(m);
        REALMT_FUZZ_CHECK(bytes.size() == m.size);
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
