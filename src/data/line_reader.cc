#include "data/line_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include "core/error.h"
#include "common/utf8.h"

namespace realmt::data {

namespace {
constexpr size_t kChunk = 1 << 20;
}

void check_utf8_line(const std::string& path, int64_t line_number, std::string_view line) {
  const size_t bad = find_invalid_utf8(line);
  REALMT_CHECK(bad == std::string_view::npos,
               "{}:{}: invalid UTF-8 at byte {} of the line (byte 0x{}); convert the file to UTF-8 "
               "(e.g. iconv) or fix that line",
               path, line_number, bad + 1, [&] {
                 static const char* hex = "0123456789ABCDEF";
                 const auto b = static_cast<unsigned char>(line[bad]);
                 return std::string{hex[b >> 4], hex[b & 15]};
               }());
}

LineReader::LineReader(std::string path, bool check_utf8)
    : path_(std::move(path)), check_utf8_(check_utf8), buffer_(kChunk) {
  if (path_ == "-") {
    gz_ = gzdopen(dup(0), "rb");
  } else {
    std::error_code ec;
    REALMT_CHECK(std::filesystem::exists(path_, ec), "cannot open {}: no such file", path_);
    REALMT_CHECK(!std::filesystem::is_directory(path_, ec), "cannot read {}: it is a directory",
                 path_);
    errno = 0;
    gz_ = gzopen(path_.c_str(), "rb");
  }
  REALMT_CHECK(gz_ != nullptr, "cannot open {}: {}", path_,
               errno ? std::strerror(errno) : "out of memory");
  gzbuffer(static_cast<gzFile>(gz_), 1 << 18);
}

LineReader::~LineReader() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

bool LineReader::fill() {
  // Keep the unfinished line at the front and read more behind it.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // a line longer than the buffer
  const int n = gzread(static_cast<gzFile>(gz_), buffer_.data() + end_,
                       static_cast<unsigned>(buffer_.size() - end_));
  if (n < 0) {
    int code = 0;
    const char* msg = gzerror(static_cast<gzFile>(gz_), &code);
    REALMT_FAIL("{}:{}: read error: {}", path_, line_number_ + 1,
                code == Z_ERRNO ? std::strerror(errno) : msg);
  }
  if (n == 0) {
    // zlib reports a gzip stream cut short (a truncated download, a missing trailer) as
    // Z_BUF_ERROR with a normal end of data: without this check the file would read as a
    // shorter one.
    int code = 0;
    const char* msg = gzerror(static_cast<gzFile>(gz_), &code);
    REALMT_CHECK(code == Z_OK,
                 "{}: the gzip data is incomplete ({}) after line {}: the file is truncated or "
                 "damaged; fetch or compress it again",
                 path_, msg, line_number_ + (end_ > begin_ ? 1 : 0));
    eof_ = true;
    return false;
  }
  end_ += static_cast<size_t>(n);
  return true;
}

bool LineReader::next(std::string& line) {
  size_t scanned = begin_;
  for (;;) {
    const void* nl = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (nl) {
      const size_t at = static_cast<const char*>(nl) - buffer_.data();
      line.assign(buffer_.data() + begin_, at - begin_);
      begin_ = at + 1;
      break;
    }
    const size_t pending = end_ - begin_;
    if (eof_ || !fill()) {
      if (end_ == begin_) return false;
      line.assign(buffer_.data() + begin_, end_ - begin_);  // last line without '\n'
      begin_ = end_;
      break;
    }
    scanned = begin_ + pending;
  }
  ++line_number_;
  if (check_utf8_) check_utf8_line(path_, line_number_, line);
  return true;
}

std::vector<std::string> read_lines(const std::string& path, bool check_utf8) {
  LineReader reader(path, check_utf8);
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(line)) lines.push_back(line);
  return lines;
}

}  // namespace realmt::data
