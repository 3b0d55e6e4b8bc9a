// The .npy reader (realmt-convert: the arrays of Marian's .npz models) on arbitrary bytes: the
// header, the data size it implies, and the conversions to f32 tensors and to text.
#include "convert/npy.h"
#include "core/error.h"
#include "fuzz_util.h"

using namespace realmt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const convert::NpyArray a = convert::parse_npy(bytes, "input.npy");
    REALMT_FUZZ_CHECK(a.numel() >= 0 && a.data.size() <= size);
    try {
      const Tensor t = convert::npy_to_f32(a, "input.npy");
      REALMT_FUZZ_CHECK(t.numel() == a.numel());
    } catch (const Error&) {
    }
    try {
      REALMT_FUZZ_CHECK(convert::npy_to_text(a, "input.npy").size() <= a.data.size());
    } catch (const Error&) {
    }
  } catch (const Error&) {
  }
  return 0;
}
