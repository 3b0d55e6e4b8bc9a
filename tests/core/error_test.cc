#include "core/error.h"

#include <gtest/gtest.h>

#include <string>

namespace realmt {
namespace {

TEST(Error, CheckCarriesValuesAndLocation) {
  try {
    const int got = 3;
    REALMT_CHECK(got == 4, "expected {} columns, got {}", 4, got);
    FAIL() << "REALMT_CHECK did not throw";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("expected 4 columns, got 3"), std::string::npos) << m;
    EXPECT_NE(m.find("error_test.cc:"), std::string::npos) << m;
    EXPECT_GT(e.line(), 0);
  }
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
