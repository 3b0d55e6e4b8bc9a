#include "core/error.h"

#include <gtest/gtest.h>

#include "core/error_message.h"
#include "core/log.h"

#include <string>

namespace realmt {
namespace {

TEST(Error, CheckCarriesValuesAndLocation) {
  try {
    const int got = 3;
    REALMT_CHECK(got == 4, "expected {} columns, got {}", 4, got);
    FAIL() << "REALMT_CHECK did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "expected 4 columns, got 3");
    EXPECT_NE(std::string(e.file()).find("error_test.cc"), std::string::npos) << e.file();
    EXPECT_GT(e.line(), 0);
  }
}

// The place of a user's error is printed only at --log-level debug; an internal error's always.
TEST(Error, MessageNamesThePlaceOnlyAtDebug) {
  const log::Level saved = log::level();
  const Error user("bad input", "/x/src/data/vocab.cc", 74);
  const InternalError bug("internal error: 'x' failed at src/a.cc:3", "/x/src/a.cc", 3);
  log::set_level(log::Level::kInfo);
  EXPECT_EQ(error_message(user), "bad input");
  EXPECT_EQ(error_message(bug), bug.what());
  log::set_level(log::Level::kDebug);
  EXPECT_EQ(error_message(user), "bad input (src/data/vocab.cc:74)");
  EXPECT_EQ(error_message(bug), bug.what());
  EXPECT_EQ(error_message(std::runtime_error("plain")), "plain");
  log::set_level(saved);
}

TEST(Error, AssertIsInternalAndStaysOn) {
  EXPECT_THROW(REALMT_ASSERT(1 + 1 == 3), InternalError);
  EXPECT_NO_THROW(REALMT_ASSERT(1 + 1 == 2));
}

TEST(Error, FormatExtraBracesAndArgs) {
  EXPECT_EQ(format("a{}b{}", 1, "x"), "a1bx");
  EXPECT_EQ(format("no args {}"), "no args {}");
  EXPECT_EQ(format("{}", 2, 3), "2");
}

}  // namespace
}  // namespace realmt
