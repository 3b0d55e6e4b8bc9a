// Files written atomically (checkpoints, configs) and files read whole, with errors that
// name the path and the system's reason. No tensors: part of realmt_base.
//
// An atomic write goes to a temporary file in the target's directory
// (".<name>.tmp.<host>.<pid>.<n>"), which is fsync'ed, renamed over the target, and then the
// directory is fsync'ed. A writer killed mid-write (SIGKILL, power loss) leaves its temporary
// file behind; the next atomic write of the same target on the same host removes those whose
// process is gone (remove_stale_temp_files). Readers see either the old file or the complete new
// one, also after a crash. On any error before the rename the target is untouched and the temporary
// file is removed. An error in the final directory fsync is still reported, but the new
// file is already in place then (only its durability is in doubt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace realmt {

class AtomicFile {
 public:
  // Creates the temporary file beside `path` (mode 0666 minus the umask, like a plain file).
  explicit AtomicFile(const std::string& path);
  // Without commit() (an exception, an early return) the temporary file is removed.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends n bytes (retries short writes and EINTR).
  void write(const void* data, size_t n);
  void write(std::string_view s) { write(s.data(), s.size()); }
  // fsync, close, rename over the target, fsync the directory. Call once.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }
  uint64_t bytes_written() const { return written_; }

 private:
  void discard() noexcept;

  std::string path_, temp_path_;
  int fd_ = -1;
  uint64_t written_ = 0;
  bool committed_ = false;
};

// Removes the temporary files of earlier atomic writes of `path` made on this host by
// processes that no longer exist. Best effort: errors are ignored. AtomicFile calls it.
void remove_stale_temp_files(const std::string& path);

// Writes contents to path atomically (see above).
void write_file_atomic(const std::string& path, std::string_view contents);

// The whole file; "cannot open 'x': No such file or directory" and the like on failure.
std::string read_file(const std::string& path);

// A file opened for reading at offsets; errors name the path.
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Reads exactly n bytes at offset; a short file is an error naming both sizes.
  void read_at(uint64_t offset, void* dst, size_t n) const;

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

namespace testing {
// Fault injection for tests: called before each step of an atomic write ("open", "write",
// "fsync", "rename", "fsync_dir") with the step's name; a non-zero return is taken as that
// step failing with this errno. Pass nullptr to remove. Not thread-safe; tests only.
using AtomicFileFaultHook = std::function<int(std::string_view step)>;
void set_atomic_file_fault_hook(AtomicFileFaultHook hook);
}  // namespace testing

}  // namespace realmt
