// WMT SGM test sets (realmt-data sgm2txt): read_sgm on arbitrary files. Every segment must come
// out as one line of valid UTF-8, trimmed.
#include "core/error.h"
#include "data/sgm_reader.h"
#include "common/utf8.h"
#include "fuzz_util.h"

using namespace realmt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::as_file(data, size, "sgm");
  try {
    const data::SgmDocument doc = data::read_sgm(path);
    REALMT_FUZZ_CHECK(!doc.segments.empty());
    for (const data::SgmSegment& s : doc.segments) {
      REALMT_FUZZ_CHECK(s.text.find('\n') == std::string::npos &&
                        s.text.find('\r') == std::string::npos);
      REALMT_FUZZ_CHECK(is_valid_utf8(s.text));
      REALMT_FUZZ_CHECK(s.line >= 1);
    }
  } catch (const Error&) {
  }
  return 0;
}
