#include "metrics/text_io.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {

std::vector<std::string> split_lines(const std::string& text, bool universal,
                                     const std::string& name) {
  const size_t bad = find_invalid_utf8(text);
  if (bad != std::string::npos) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < bad; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    REALMT_FAIL(
        "{}: invalid UTF-8 at line {}, byte {} of the line (byte offset {}); convert the file to "
        "UTF-8",
        name, line, col, bad);
  }
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      lines.emplace_back(text, start, i - start);
      start = i + 1;
    } else if (universal && text[i] == '\r') {
      lines.emplace_back(text, start, i - start);
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < text.size()) lines.emplace_back(text, start, text.size() - start);
  return lines;
}

std::vector<std::string> read_lines_file(const std::string& path) {
  // A directory opens as a stream on Linux, and its "size" is nonsense (std::bad_alloc).
  std::error_code ec;
  REALMT_CHECK(!std::filesystem::is_directory(path, ec),
               "cannot read '{}': it is a directory, not a text file", path);
  std::ifstream in(path, std::ios::binary);
  REALMT_CHECK(in.good(), "cannot open '{}': no such file or not readable", path);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.clear();  // a pipe cannot seek: read it to the end below
  in.seekg(0, std::ios::beg);
  std::string text;
  if (size > 0) {
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), size);
  } else {  // not seekable (a pipe): read to the end
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  REALMT_CHECK(!in.bad(), "error while reading '{}'", path);
  return split_lines(text, false, path);
}

std::vector<std::string> read_lines_universal(std::istream& in, const std::string& name) {
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return split_lines(text, true, name);
}

}  // namespace realmt::metrics
