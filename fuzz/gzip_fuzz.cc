// Corpus and input files, plain or gzip (data::LineReader: every corpus side, realmt-translate's
// input). Arbitrary bytes, and the same bytes gzip-compressed then cut at a fuzzer-chosen point:
// a cut stream must be an error, never a shorter file.
#include <zlib.h>

#include "core/error.h"
#include "data/line_reader.h"
#include "fuzz_util.h"

using namespace realmt;

namespace {

// All lines of the file, or nullopt-like false on a realmt::Error.
bool read_all(const std::string& path, std::vector<std::string>& out) {
  try {
    data::LineReader r(path, /*check_utf8=*/true);
    std::string line;
    while (r.next(line)) out.push_back(line);
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::string gzip(std::string_view text) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&zs, text.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> lines;
  read_all(fuzz::as_file(data, size, "gzip-raw"), lines);  // any outcome but a crash

  if (size < 2) return 0;
  // The input (minus its first byte, which picks the cut) as a gzip file.
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  const std::string gz = gzip(text);
  const std::string whole =
      fuzz::as_file(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), "gzip-whole");
  std::vector<std::string> plain;
  const bool ok = read_all(whole, plain);
  const std::string raw = fuzz::as_file(data + 1, size - 1, "gzip-plain");
  std::vector<std::string> expected;
  const bool ok_plain = read_all(raw, expected);
  if (gz.size() > 2 && !(text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f)) {
    // Decompressing gives what reading the uncompressed text gives.
    REALMT_FUZZ_CHECK(ok == ok_plain);
    if (ok) REALMT_FUZZ_CHECK(plain == expected);
  }
  const size_t cut = static_cast<size_t>(data[0]) * gz.size() / 256;  // < gz.size()
  const std::string cut_path =
      fuzz::as_file(reinterpret_cast<const uint8_t*>(gz.data()), cut, "gzip-cut");
  std::vector<std::string> partial;
  // A cut gzip stream is an error (a cut inside the 10-byte header reads as plain text bytes).
  if (cut >= 10) REALMT_FUZZ_CHECK(!read_all(cut_path, partial));
  return 0;
}
