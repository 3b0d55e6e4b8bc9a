#include "common/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.h"

namespace realmt {

namespace {

testing::AtomicFileFaultHook& fault_hook() {
  static testing::AtomicFileFaultHook hook;
  return hook;
}

// errno for a step: the injected one when a test hook asks for it, else what the call set.
int injected(std::string_view step) {
  auto& hook = fault_hook();
  return hook ? hook(step) : 0;
}

std::string reason(int err) { return std::strerror(err); }

std::string dir_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// This host's name as it goes into temporary file names: letters, digits and '-' only (so
// that '.' separates the name's fields), at most 64 characters.
const std::string& host_tag() {
  static const std::string tag = [] {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0) buf[0] = '\0';
    std::string t;
    for (const char* p = buf; *p && t.size() < 64; ++p)
      t += std::isalnum(static_cast<unsigned char>(*p)) || *p == '-' ? *p : '-';
    return t.empty() ? std::string("host") : t;
  }();
  return tag;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void remove_stale_temp_files(const std::string& path) {
  const std::string dir = dir_of(path);
  const std::string prefix = "." + base_of(path) + ".tmp." + host_tag() + ".";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;  // best effort: the write itself reports a directory that is not there
  std::vector<std::string> stale;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (!name.starts_with(prefix)) continue;
    const std::string_view rest = name.substr(prefix.size());  // "<pid>.<n>"
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos || !all_digits(rest.substr(0, dot)) ||
        !all_digits(rest.substr(dot + 1)) || dot > 9)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(std::string(rest.substr(0, dot))));
    // Another thread of this process may be writing it; a live process certainly is.
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    stale.emplace_back(name);
  }
  ::closedir(d);
  for (const std::string& name : stale) ::unlink((dir + "/" + name).c_str());
}

void testing::set_atomic_file_fault_hook(AtomicFileFaultHook hook) {
  fault_hook() = std::move(hook);
}

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  REALMT_CHECK(!path.empty() && path.back() != '/', "cannot write '{}': not a file name", path);
  // Host + pid + a process-wide counter make the name unique; O_EXCL guards against leftovers.
  // Leftovers of killed writers on this host are removed first (they are never renamed).
  remove_stale_temp_files(path);
  static std::atomic<uint64_t> counter{0};
  const std::string prefix = dir_of(path) + "/." + base_of(path) + ".tmp." + host_tag() + "." +
                             std::to_string(getpid()) + ".";
  for (int attempt = 0;; ++attempt) {
    temp_path_ = prefix + std::to_string(counter.fetch_add(1));
    int err = injected("open");
    if (err == 0) {
      fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ >= 0) return;
      err = errno;
    }
    if (err == EEXIST && attempt < 100) continue;
    temp_path_.clear();
    REALMT_FAIL("cannot write '{}': cannot create a temporary file in '{}': {}", path, dir_of(path),
                reason(err));
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
}

void AtomicFile::write(const void* data, size_t n) {
  REALMT_CHECK(fd_ >= 0 && !committed_, "cannot write '{}': file already committed or failed",
               path_);
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    int err = injected("write");
    ssize_t w = -1;
    if (err == 0) {
      w = ::write(fd_, p, n);
      if (w < 0) err = errno;
      if (w == 0) err = EIO;  // no progress on a regular file: do not spin
    }
    if (err == EINTR) continue;
    if (err != 0) {
      const std::string temp = temp_path_;
      discard();
      REALMT_FAIL("cannot write '{}' (temporary file '{}'): {}", path_, temp, reason(err));
    }
    p += w;
    n -= static_cast<size_t>(w);
    written_ += static_cast<uint64_t>(w);
  }
}

void AtomicFile::commit() {
  REALMT_CHECK(fd_ >= 0 && !committed_, "cannot write '{}': file already committed or failed",
               path_);
  // The data must be on disk before the rename makes it visible; otherwise a crash could
  // leave a complete-looking name with missing contents.
  int err = injected("fsync");
  if (err == 0 && ::fsync(fd_) != 0) err = errno;
  if (err == 0) {
    // close() releases the descriptor even when it fails, so it is never closed twice.
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) err = errno;
  }
  if (err != 0) {
    discard();
    REALMT_FAIL("cannot write '{}': flushing the temporary file failed: {}", path_, reason(err));
  }
  err = injected("rename");
  if (err == 0 && ::rename(temp_path_.c_str(), path_.c_str()) != 0) err = errno;
  if (err != 0) {
    discard();
    REALMT_FAIL("cannot write '{}': renaming the temporary file over it failed: {}", path_,
                reason(err));
  }
  committed_ = true;
  temp_path_.clear();
  // The rename itself is durable only once the directory entry is.
  const std::string dir = dir_of(path_);
  err = injected("fsync_dir");
  if (err == 0) {
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
      err = errno;
    } else {
      if (::fsync(dfd) != 0) err = errno;
      ::close(dfd);
    }
  }
  REALMT_CHECK(err == 0, "wrote '{}', but syncing its directory '{}' failed: {}", path_, dir,
               reason(err));
}

void write_file_atomic(const std::string& path, std::string_view contents) {
  AtomicFile f(path);
  f.write(contents);
  f.commit();
}

InputFile::InputFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REALMT_CHECK(fd_ >= 0, "cannot open '{}': {}", path, reason(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    REALMT_FAIL("cannot read '{}': {}", path, reason(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd_);
    REALMT_FAIL("cannot read '{}': it is a directory", path);
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read_at(uint64_t offset, void* dst, size_t n) const {
  char* p = static_cast<char*>(dst);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd_, p + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    REALMT_CHECK(r >= 0, "cannot read '{}': {}", path_, reason(errno));
    REALMT_CHECK(r > 0, "cannot read '{}': file ends at byte {}, wanted bytes [{}, {})", path_,
                 offset + done, offset, offset + n);
    done += static_cast<size_t>(r);
  }
}

std::string read_file(const std::string& path) {
  InputFile f(path);
  std::string s(f.size(), '\0');
  f.read_at(0, s.data(), s.size());
  return s;
}

}  // namespace realmt
