// core/log.h, the one logging facility: the line style, the level filter (stderr and the --log
// file alike), lines for the file only, multi-line messages, Marian's level names, and a log
// file that cannot be opened.
#include "core/log.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../common/temp_dir.h"

namespace realmt::log {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Restores the defaults (level info, no file) whatever a test did.
class Log : public ::testing::Test {
 protected:
  void TearDown() override {
    set_file("");
    set_level(Level::kInfo);
  }
  testing::TempDir dir_;
};

const std::regex kStamp(R"(^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\] )");

TEST_F(Log, FileGetsEveryLevelAtOrAboveTheOneSetInOneStyle) {
  const std::string path = dir_.file("run.log");
  set_file(path);
  ::testing::internal::CaptureStderr();
  set_level(Level::kWarn);
  info("hidden {}", 1);
  line("hidden line");
  warn("careful {}", 2);
  error("broken {}", 3);
  set_level(Level::kDebug);
  debug("detail {}", 4);
  line("plain", /*quiet=*/true);  // quiet: the file only
  file_only(Level::kError, "for the file");
  const std::string err = ::testing::internal::GetCapturedStderr();
  set_file("");
  const std::vector<std::string> file = lines_of(testing::read_bytes(path));
  ASSERT_EQ(file.size(), 5u) << testing::read_bytes(path);
  const std::vector<std::string> tails = {"[warn] careful 2", "[error] broken 3",
                                          "[debug] detail 4", "plain", "[error] for the file"};
  for (size_t i = 0; i < file.size(); ++i) {
    EXPECT_TRUE(std::regex_search(file[i], kStamp)) << file[i];
    EXPECT_EQ(std::regex_replace(file[i], kStamp, ""), tails[i]);
  }
  const std::vector<std::string> shown = lines_of(err);
  ASSERT_EQ(shown.size(), 3u) << err;  // neither the quiet line nor the file-only one
  EXPECT_EQ(std::regex_replace(shown[0], kStamp, ""), "[warn] careful 2");
  EXPECT_EQ(std::regex_replace(shown[2], kStamp, ""), "[debug] detail 4");
}

TEST_F(Log, OffSilencesEverythingAndFileOnlyNeedsAFile) {
  const std::string path = dir_.file("off.log");
  set_file(path);
  set_level(Level::kOff);
  ::testing::internal::CaptureStderr();
  error("not even this");
  file_only(Level::kError, "nor this");
  line("nor a line");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(testing::read_bytes(path), "");
  set_file("");
  set_level(Level::kInfo);
  ::testing::internal::CaptureStderr();
  file_only(Level::kError, "no file: nowhere");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(has_file());
}

// A table logged as one message: each of its lines is stamped; the final newlines go.
TEST_F(Log, EveryLineOfAMultiLineMessageIsStamped) {
  const std::vector<std::string> got = lines_of(stamped("title:\nrow 1\n\nrow 3\n\n"));
  ASSERT_EQ(got.size(), 4u);
  const std::vector<std::string> want = {"title:", "row 1", "", "row 3"};
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(std::regex_search(got[i], kStamp)) << got[i];
    EXPECT_EQ(std::regex_replace(got[i], kStamp, ""), want[i]);
  }
  EXPECT_EQ(std::regex_replace(stamped("one"), kStamp, ""), "one");
  EXPECT_TRUE(std::regex_match(stamped(""), std::regex(R"(\[[^\]]+\] )")));
}

TEST_F(Log, MarianLevelNames) {
  EXPECT_EQ(parse_level("trace"), Level::kDebug);
  EXPECT_EQ(parse_level("debug"), Level::kDebug);
  EXPECT_EQ(parse_level("info"), Level::kInfo);
  EXPECT_EQ(parse_level("warn"), Level::kWarn);
  EXPECT_EQ(parse_level("err"), Level::kError);
  EXPECT_EQ(parse_level("error"), Level::kError);
  EXPECT_EQ(parse_level("critical"), Level::kError);
  EXPECT_EQ(parse_level("off"), Level::kOff);
  try {
    parse_level("loud");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'loud'"), std::string::npos) << e.what();
  }
}

TEST_F(Log, AFileThatCannotBeOpenedIsAnErrorNamingIt) {
  const std::string path = dir_.file("no/such/dir/x.log");
  try {
    set_file(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(has_file());
}

}  // namespace
}  // namespace realmt::log
