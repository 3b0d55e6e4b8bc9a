// Reads a text file line by line: plain or gzip (detected from the content, not the name),
// "-" for stdin. Used for every corpus side and for monolingual input (translation).
//
// Contract:
// - next() returns each line without its '\n'; a last line without '\n' is still a line.
//   Nothing else is stripped ('\r' stays: the caller decides), so no data is lost.
// - line_number() is the 1-based number of the line last returned.
// - A file that cannot be opened or read, a corrupt gzip stream, and (with check_utf8) a line
//   that is not valid UTF-8 raise realmt::Error naming the file and the line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace realmt::data {

class LineReader {
 public:
  explicit LineReader(std::string path, bool check_utf8 = true);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  bool next(std::string& line);
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  bool fill();

  std::string path_;
  bool check_utf8_;
  void* gz_ = nullptr;  // gzFile; void* keeps zlib.h out of this header
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  int64_t line_number_ = 0;
};

// All lines of a file (small files: test sets, dev sets, fixtures).
std::vector<std::string> read_lines(const std::string& path, bool check_utf8 = true);

// Throws realmt::Error naming path:line and the byte column when `line` is not valid UTF-8.
void check_utf8_line(const std::string& path, int64_t line_number, std::string_view line);

}  // namespace realmt::data
