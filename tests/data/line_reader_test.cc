#include "data/line_reader.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "test_util.h"

namespace realmt::data {
namespace {

using test::TempDir;
using test::write_file;
using test::write_gzip;

// Runs fn, expects realmt::Error, and returns its message.
template <typename F>
std::string error_of(F fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no realmt::Error thrown";
  return {};
}

TEST(LineReader, ReadsPlainAndGzipAlike) {
  TempDir dir;
  const std::string text = "first\nsecond\r\n\nlast without newline";
  for (const auto& path :
       {write_file(dir.file("a.txt"), text), write_gzip(dir.file("a.gz"), text)}) {
    LineReader r(path);
    std::string line;
    std::vector<std::string> lines;
    while (r.next(line)) lines.push_back(line);
    ASSERT_EQ(lines.size(), 4u) << path;
    EXPECT_EQ(lines[1], "second\r");  // nothing but '\n' is stripped
    EXPECT_EQ(lines[2], "");
    EXPECT_EQ(lines[3], "last without newline");
    EXPECT_EQ(r.line_number(), 4);
  }
}

TEST(LineReader, LongLinesGrowTheBuffer) {
  TempDir dir;
  const std::string big(3 << 20, 'x');
  const auto lines = read_lines(write_file(dir.file("big"), "a\n" + big + "\nb\n"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], big);
  EXPECT_EQ(lines[2], "b");
}

TEST(LineReader, InvalidUtf8NamesFileAndLine) {
  TempDir dir;
  const auto path = write_file(dir.file("bad.txt"), "good\nalso good\nbad \xe9t\xe9\n");
  const std::string msg = error_of([&] { read_lines(path); });
  EXPECT_NE(msg.find(path + ":3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("invalid UTF-8"), std::string::npos) << msg;
  EXPECT_EQ(read_lines(path, /*check_utf8=*/false).size(), 3u);
}

TEST(LineReader, UnreadableFilesAreErrors) {
  TempDir dir;
  EXPECT_NE(error_of([&] { LineReader r(dir.file("missing")); }).find("no such file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { LineReader r(dir.path().string()); }).find("directory"),
            std::string::npos);
  // A gzip header followed by garbage: a read error naming the file.
  const auto path = write_file(dir.file("corrupt.gz"),
                               std::string("\x1f\x8b\x08\x00", 4) + std::string(64, '\x55'));
  const std::string msg = error_of([&] { read_lines(path); });
  EXPECT_NE(msg.find(path + ":1"), std::string::npos) << msg;
}

TEST(LineReader, TruncatedGzipIsAnErrorNotAShorterFile) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i) + " of a gzip file\n";
  const std::string whole = test::read_bytes(write_gzip(dir.file("whole.gz"), text));
  EXPECT_EQ(read_lines(dir.file("whole.gz")).size(), 20000u);
  // Cut in the middle of the compressed data, and just before the 8-byte trailer (CRC, size).
  for (const size_t keep : {whole.size() / 2, whole.size() - 8, whole.size() - 1}) {
    const auto path =
        write_file(dir.file("cut" + std::to_string(keep) + ".gz"), whole.substr(0, keep));
    const std::string msg = error_of([&] { read_lines(path); });
    EXPECT_NE(msg.find(path + ": the gzip data is incomplete"), std::string::npos)
        << keep << ": " << msg;
  }
}

}  // namespace
}  // namespace realmt::data
