// The torch.save reader (realmt-convert: pytorch_model.bin) on arbitrary pickles: the input is the
// archive's data.pkl, put in a zip with four storages (data/0 .. data/3, 64 bytes each), so that
// the fuzzer mutates the pickle machine's input rather than the zip around it. Every tensor it
// rebuilds must hold readable values of its shape.
#include "convert/torch_reader.h"
#include "convert/zip_writer.h"
#include "core/error.h"
#include "fuzz_util.h"

using namespace realmt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::pair<std::string, std::string>> members{
      {"archive/data.pkl", std::string(reinterpret_cast<const char*>(data), size)}};
  for (int k = 0; k < 4; ++k) {
    std::string storage(64, '\0');
    for (int i = 0; i < 64; ++i) storage[i] = static_cast<char>(k * 64 + i);
    members.emplace_back("archive/data/" + std::to_string(k), storage);
  }
  const std::string zip =
      convert::zip_stored(members);  // stored members, as torch.save writes them
  const std::string path =
      fuzz::as_file(reinterpret_cast<const uint8_t*>(zip.data()), zip.size(), "torch");
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
