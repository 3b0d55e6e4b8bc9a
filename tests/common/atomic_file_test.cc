#include "common/atomic_file.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "expect_error.h"
#include "temp_dir.h"

namespace realmt::testing {
namespace {

// Removes the fault hook when a test ends, whatever happens.
struct HookGuard {
  explicit HookGuard(realmt::testing::AtomicFileFaultHook h) {
    realmt::testing::set_atomic_file_fault_hook(std::move(h));
  }
  ~HookGuard() { realmt::testing::set_atomic_file_fault_hook(nullptr); }
};

TEST(AtomicFile, WritesNewFileAndReplacesOldOne) {
  TempDir dir;
  const std::string path = dir.file("a.txt");
  write_file_atomic(path, "first");
  EXPECT_EQ(read_file(path), "first");
  write_file_atomic(path, std::string("second\0with nul", 15));
  EXPECT_EQ(read_file(path), std::string("second\0with nul", 15));
  EXPECT_EQ(dir.list(), std::vector<std::string>{"a.txt"});  // no temporary file left
}

TEST(AtomicFile, StreamingWritesAndPermissionsOfAPlainFile) {
  TempDir dir;
  const std::string path = dir.file("b.bin");
  {
    AtomicFile f(path);
    EXPECT_NE(f.temp_path(), path);
    EXPECT_EQ(std::filesystem::path(f.temp_path()).parent_path(), dir.path());
    f.write("abc", 3);
    f.write(std::string_view("def"));
    EXPECT_EQ(f.bytes_written(), 6u);
    EXPECT_FALSE(std::filesystem::exists(path));  // invisible until commit
    f.commit();
  }
  EXPECT_EQ(read_file(path), "abcdef");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

TEST(AtomicFile, AbandonedWriteRemovesTempAndKeepsTarget) {
  TempDir dir;
  const std::string path = dir.file("c.txt");
  write_file_atomic(path, "old");
  {
    AtomicFile f(path);
    f.write("new but never committed");
  }
  EXPECT_EQ(read_file(path), "old");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"c.txt"});
}

// Every step of the write failing leaves the old contents and no temporary file.
TEST(AtomicFile, InjectedFailureAtEachStepKeepsOldFile) {
  for (const char* step : {"open", "write", "fsync", "rename"}) {
    SCOPED_TRACE(step);
    TempDir dir;
    const std::string path = dir.file("model.safetensors");
    write_file_atomic(path, "old contents");
    HookGuard guard([step](std::string_view s) { return s == step ? ENOSPC : 0; });
    expect_error([&] { write_file_atomic(path, "new contents"); },
                 {path, "No space left on device"});
    EXPECT_EQ(read_file(path), "old contents");
    EXPECT_EQ(dir.list(), std::vector<std::string>{"model.safetensors"});
  }
}

TEST(AtomicFile, DirectorySyncFailureIsReportedAfterTheRename) {
  TempDir dir;
  const std::string path = dir.file("d.txt");
  write_file_atomic(path, "old");
  HookGuard guard([](std::string_view s) { return s == "fsync_dir" ? EIO : 0; });
  expect_error([&] { write_file_atomic(path, "new"); },
               {path, "syncing its directory", "Input/output error"});
  EXPECT_EQ(read_file(path), "new");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"d.txt"});
}

TEST(AtomicFile, MissingDirectoryIsAnErrorNamingThePath) {
  TempDir dir;
  const std::string path = dir.file("no/such/dir/e.txt");
  expect_error([&] { write_file_atomic(path, "x"); }, {path, "No such file or directory"});
}

TEST(AtomicFile, RenameOntoADirectoryFailsAndLeavesIt) {
  TempDir dir;
  const std::string path = dir.file("sub");
  std::filesystem::create_directory(path);
  write_bytes(path + "/inside", "keep");
  expect_error([&] { write_file_atomic(path, "x"); }, {path, "renaming"});
  EXPECT_EQ(read_file(path + "/inside"), "keep");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"sub"});
}

TEST(AtomicFile, UnwritableDirectoryKeepsOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  TempDir dir;
  const std::string path = dir.file("f.txt");
  write_file_atomic(path, "old");
  std::filesystem::permissions(
      dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  expect_error([&] { write_file_atomic(path, "new"); }, {path, "Permission denied"});
  EXPECT_EQ(read_file(path), "old");
}

TEST(AtomicFile, TemporaryFilesOfKilledWritersAreRemovedByTheNextWrite) {
  TempDir dir;
  const std::string path = dir.file("m.safetensors");
  // The name pattern ".<name>.tmp.<host>.<pid>.<n>", read off a live write.
  std::string host;
  {
    AtomicFile probe(path);
    const std::string name = std::filesystem::path(probe.temp_path()).filename().string();
    const std::string head = ".m.safetensors.tmp.";
    ASSERT_EQ(name.rfind(head, 0), 0u) << name;
    host = name.substr(head.size(), name.find('.', head.size()) - head.size());
  }
  // A process that has exited: its pid names no process (until reused, which takes a while).
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const std::string dead = ".m.safetensors.tmp." + host + "." + std::to_string(child) + ".0";
  const std::string live = ".m.safetensors.tmp." + host + "." + std::to_string(::getppid()) + ".3";
  const std::string other_host = ".m.safetensors.tmp.elsewhere." + std::to_string(child) + ".1";
  const std::string other_file = ".n.safetensors.tmp." + host + "." + std::to_string(child) + ".0";
  for (const auto& n : {dead, live, other_host, other_file}) write_bytes(dir.file(n), "partial");
  write_file_atomic(path, "complete");
  EXPECT_EQ(read_file(path), "complete");
  // Only the dead writer's file of this target on this host went; the others may still be written.
  std::vector<std::string> expected{other_host, live, "m.safetensors", other_file};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(dir.list(), expected);
}

TEST(ReadFile, ErrorsNameThePath) {
  TempDir dir;
  expect_error([&] { read_file(dir.file("missing.txt")); },
               {dir.file("missing.txt"), "No such file or directory"});
  expect_error([&] { read_file(dir.path().string()); }, {"is a directory"});
  write_bytes(dir.file("x"), "12345");
  InputFile f(dir.file("x"));
  EXPECT_EQ(f.size(), 5u);
  char buf[8];
  f.read_at(1, buf, 3);
  EXPECT_EQ(std::string(buf, 3), "234");
  expect_error([&] { f.read_at(3, buf, 4); }, {dir.file("x"), "file ends at byte 5"});
}

}  // namespace
}  // namespace realmt::testing
