// GNU gettext catalogs (realmt-data mo2pairs): read_mo on arbitrary files, then the cleaning
// filter on every entry; a kept pair is valid UTF-8 on one line.
#include "core/error.h"
#include "data/mo_catalog.h"
#include "common/utf8.h"
#include "fuzz_util.h"

using namespace realmt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::as_file(data, size, "mo");
  try {
    std::string en, fr;
    for (const data::MoEntry& e : data::read_mo(path)) {
      if (data::clean_mo_entry(e, data::MoFilterOptions{}, en, fr) != data::MoVerdict::kKept)
        continue;
      REALMT_FUZZ_CHECK(is_valid_utf8(en) && is_valid_utf8(fr));
      REALMT_FUZZ_CHECK(en.find('\n') == std::string::npos && fr.find('\n') == std::string::npos);
    }
  } catch (const Error&) {
  }
  return 0;
}
