#include "data/corpus_index.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>

#include "core/error.h"
#include "data/line_reader.h"

namespace realmt::data {

namespace {

bool is_gzip(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REALMT_CHECK(fd >= 0, "cannot open {}: {}", path, std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  const ssize_t n = ::read(fd, magic, 2);
  ::close(fd);
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// An unlinked temporary file: it vanishes when its descriptor closes, even after a crash.
int make_temp_file(const std::string& temp_dir, const std::string& for_path) {
  std::string dir = temp_dir;
  if (dir.empty()) dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  std::string name = dir + "/realmt-corpus-XXXXXX";
  const int fd = ::mkstemp(name.data());
  REALMT_CHECK(fd >= 0, "cannot create a temporary file in {} to decompress {}: {}; set --temp-dir",
               dir, for_path, std::strerror(errno));
  ::unlink(name.c_str());
  return fd;
}

void write_all(int fd, const char* data, size_t n, const std::string& what) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    REALMT_CHECK(w > 0 || errno == EINTR, "writing the decompressed copy of {} failed: {}", what,
                 std::strerror(errno));
    if (w > 0) data += w, n -= size_t(w);
  }
}

}  // namespace

LineIndex::LineIndex(const std::string& path, const std::string& temp_dir, bool tsv) : path_(path) {
  const bool gz = is_gzip(path);
  fd_ = gz ? make_temp_file(temp_dir, path) : ::open(path.c_str(), O_RDONLY);
  REALMT_CHECK(fd_ >= 0, "cannot open {}: {}", path, std::strerror(errno));
  LineReader reader(path);  // decompresses, checks UTF-8, names file:line in errors
  std::string line, pending;
  uint64_t offset = 0;
  offsets_.push_back(0);
  while (reader.next(line)) {
    if (tsv) {
      const size_t tab = line.find('\t');
      REALMT_CHECK(tab != std::string::npos,
                   "{}:{}: no tab in this line; a TSV corpus needs source<TAB>target on each line",
                   path, reader.line_number());
      const size_t end = line.find('\t', tab + 1);
      if (tab == 0 || end == tab + 1 || tab + 1 == line.size()) {
        tsv_empty_.push_back(uint32_t(reader.line_number() - 1));
      }
    }
    offset += line.size() + 1;
    offsets_.push_back(offset);
    REALMT_CHECK(offsets_.size() < (uint64_t(1) << 32), "{}: more than 4 billion lines", path);
    if (gz) {
      pending.append(line).push_back('\n');
      if (pending.size() >= (1 << 20))
        write_all(fd_, pending.data(), pending.size(), path), pending.clear();
    }
  }
  if (gz) write_all(fd_, pending.data(), pending.size(), path);
  offsets_.shrink_to_fit();
}

LineIndex::~LineIndex() {
  if (fd_ >= 0) ::close(fd_);
}

void LineIndex::read(int64_t i, std::string& out) const {
  const int64_t n = length(i);
  out.resize(size_t(n));
  int64_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd_, out.data() + done, size_t(n - done), off_t(offsets_[i] + done));
    REALMT_CHECK(r > 0 || (r < 0 && errno == EINTR),
                 "{}:{}: read failed ({}); did the file change "
                 "while training?",
                 path_, i + 1, r == 0 ? "file shorter than indexed" : std::strerror(errno));
    if (r > 0) done += r;
  }
}

CorpusIndex::CorpusIndex(const std::string& src_path, const std::string& tgt_path,
                         const std::string& temp_dir) {
  // Scan the target side on a second thread while this one scans the source.
  std::exception_ptr tgt_error;
  std::thread tgt_thread;
  if (!tgt_path.empty()) {
    tgt_thread = std::thread([&] {
      try {
        tgt_ = std::make_unique<LineIndex>(tgt_path, temp_dir, false);
      } catch (...) {
        tgt_error = std::current_exception();
      }
    });
  }
  try {
    src_ = std::make_unique<LineIndex>(src_path, temp_dir, tgt_path.empty());
  } catch (...) {
    if (tgt_thread.joinable()) tgt_thread.join();
    throw;
  }
  if (tgt_thread.joinable()) tgt_thread.join();
  if (tgt_error) std::rethrow_exception(tgt_error);
  if (tgt_) {
    REALMT_CHECK(src_->lines() == tgt_->lines(),
                 "line counts differ: {} has {} lines but {} has {}; the two sides of a parallel "
                 "corpus must have the same number of lines",
                 src_path, src_->lines(), tgt_path, tgt_->lines());
  }
  usable_.reserve(size_t(src_->lines()));
  size_t e = 0;
  const auto& tsv_empty = src_->tsv_empty();
  for (int64_t i = 0; i < src_->lines(); ++i) {
    if (tgt_) {
      if (src_->length(i) == 0 || tgt_->length(i) == 0) continue;
    } else if (e < tsv_empty.size() && tsv_empty[e] == uint32_t(i)) {
      ++e;
      continue;
    }
    usable_.push_back(uint32_t(i));
  }
  usable_.shrink_to_fit();
}

void CorpusIndex::read(int64_t i, std::string& src, std::string& tgt) const {
  if (tgt_) {
    src_->read(i, src);
    tgt_->read(i, tgt);
    return;
  }
  src_->read(i, src);
  const size_t tab = src.find('\t');
  const size_t end = src.find('\t', tab + 1);
  tgt = src.substr(tab + 1, end == std::string::npos ? end : end - tab - 1);
  src.resize(tab);
}

std::string CorpusIndex::name() const {
  return tgt_ ? src_->path() + " + " + tgt_->path() : src_->path();
}

}  // namespace realmt::data
