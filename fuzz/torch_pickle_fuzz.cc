// The torch.save reader (realmt-convert: pytorch_model.bin) on arbitrary pickles: the input is the
// archive's data.pkl, put in a zip with four storages (data/0 .. data/3, 64 bytes each), so that
// the fuzzer mutates the pickle machine's input rather than the zip around it. Every tensor it
// rebuilds must hold readable values of its shape.
#include <zlib.h>

#include "convert/torch_reader.h"
#include "core/error.h"
#include "fuzz_util.h"

using namespace realmt;

namespace {

void put(std::string& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A zip of stored members, as torch.save writes it.
std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out, cd;
  for (const auto& [name, data] : members) {
    const uint32_t crc = static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(data.data()), data.size()));
    const uint64_t offset = out.size();
    for (std::string* b : {&out, &cd}) {
      put(*b, b == &out ? 0x04034b50 : 0x02014b50, 4);
      if (b == &cd) put(*b, 20, 2);  // version made by
      put(*b, 20, 2);
      put(*b, 0, 2);
      put(*b, 0, 2);  // stored
      put(*b, 0, 4);
      put(*b, crc, 4);
      put(*b, data.size(), 4);
      put(*b, data.size(), 4);
      put(*b, name.size(), 2);
      put(*b, 0, 2);
      if (b == &cd) {
        put(*b, 0, 2);
        put(*b, 0, 2);
        put(*b, 0, 2);
        put(*b, 0, 4);
        put(*b, offset, 4);
      }
      *b += name;
      if (b == &out) *b += data;
    }
  }
  const uint64_t cd_offset = out.size();
  out += cd;
  put(out, 0x06054b50, 4);
  put(out, 0, 4);
  put(out, members.size(), 2);
  put(out, members.size(), 2);
  put(out, cd.size(), 4);
  put(out, cd_offset, 4);
  put(out, 0, 2);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::pair<std::string, std::string>> members{{"archive/data.pkl", std::string(reinterpret_cast<const char*>(data), size)}};
  for (int k = 0; k < 4; ++k) {
    std::string storage(64, '\0');
    for (int i = 0; i < 64; ++i) storage[i] = static_cast<char>(k * 64 + i);
    members.emplace_back("archive/data/" + std::to_string(k), storage);
  }
  const std::string zip = stored_zip(members);
  const std::string path = fuzz::as_file(reinterpret_cast<const uint8_t*>(zip.data()), zip.size(), "torch");
  try {
    std::map<std::string, std::string> skipped;
    for (const auto& [name, t] : convert::read_torch_state_dict(path, &skipped)) {
      REALMT_FUZZ_CHECK(t.dtype() == DType::kF32 && !skipped.count(name));
      float sum = 0;  // every element readable (ASan checks the bounds)
      for (float x : t.to_vector<float>()) sum += x;
      (void)sum;
    }
  } catch (const Error&) {
  }
  return 0;
}
