// The safetensors reader and the checkpoint checks on arbitrary files: header-only and full
// loads, every tensor's bytes touched and read alone from the header-only file (the same bytes),
// format/checksum/NaN verification (the same verdict streamed from the file as in memory), the
// stored model config; and the lenient read of foreign files (dtypes realmt does not hold listed
// as skipped: never readable, and a strict read refuses exactly the files that have some).
#include <cstring>
#include <string>

#include "core/error.h"
#include "fuzz_util.h"
#include "models/checkpoint.h"
#include "models/model_config.h"
#include "models/safetensors.h"

using namespace realmt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::as_file(data, size, "safetensors");
  bool lenient_ok = false, has_foreign = false;
  try {
    const models::SafetensorsFile lenient =
        models::load_safetensors(path, {.list_foreign_dtypes = true});
    lenient_ok = true;
    has_foreign = !lenient.skipped.empty();
    for (const auto& [name, dtype] : lenient.skipped)
      REALMT_FUZZ_CHECK(!lenient.contains(name) && !dtype.empty());
    for (const std::string& name : lenient.names) REALMT_FUZZ_CHECK(lenient.get(name).defined());
  } catch (const Error&) {
  }
  try {
    if (!lenient_ok || has_foreign) {
      bool strict_ok = true;
      try {
        models::load_safetensors_header(path);
      } catch (const Error&) {
        strict_ok = false;
      }
      REALMT_FUZZ_CHECK(!strict_ok);
      return 0;
    }
    const models::SafetensorsFile header = models::load_safetensors_header(path);
    const models::SafetensorsFile file = models::load_safetensors(path);
    REALMT_FUZZ_CHECK(header.names == file.names && header.metadata == file.metadata);
    uint64_t covered = 0;
    for (const std::string& name : file.names) {
      const models::SafetensorsEntry& e = file.entry(name);
      const Tensor t = file.get(name);
      REALMT_FUZZ_CHECK(t.nbytes() == e.end - e.begin && t.shape() == e.shape &&
                        t.dtype() == e.dtype);
      unsigned sum = 0;  // every byte readable (ASan checks the bounds)
      const auto* p = static_cast<const unsigned char*>(t.raw());
      for (size_t i = 0; i < t.nbytes(); ++i) sum += p[i];
      (void)sum;
      covered += t.nbytes();
      const Tensor alone = header.read(name);
      REALMT_FUZZ_CHECK(alone.nbytes() == t.nbytes() &&
                        std::memcmp(alone.raw(), t.raw(), t.nbytes()) == 0);
    }
    REALMT_FUZZ_CHECK(covered == file.data_bytes());
    auto verdict = [](const models::SafetensorsFile& f) {
      try {
        models::verify_checkpoint(f);
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    const std::string in_memory = verdict(file);
    REALMT_FUZZ_CHECK(verdict(header) == in_memory);
    if (!in_memory.empty()) return 0;
    const auto config = file.metadata.find(models::kConfigKey);
    if (config != file.metadata.end()) {
      const models::ModelConfig c = models::ModelConfig::from_yaml(config->second, path);
      REALMT_FUZZ_CHECK(models::ModelConfig::from_yaml(c.to_yaml(), path).to_yaml() == c.to_yaml());
    }
  } catch (const Error&) {
  }
  return 0;
}
