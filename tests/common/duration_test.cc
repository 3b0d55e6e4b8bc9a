#include "common/duration.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace realmt {
namespace {

using Unit = Duration::Unit;

TEST(Duration, ParsesMarianUnits) {
  EXPECT_EQ(Duration::parse("10000u"), (Duration{Unit::kUpdates, 10000}));
  EXPECT_EQ(Duration::parse("2e"), (Duration{Unit::kEpochs, 2}));
  EXPECT_EQ(Duration::parse("500000t"), (Duration{Unit::kTokens, 500000}));
}

TEST(Duration, BareNumberMeansUpdates) {
  EXPECT_EQ(Duration::parse("1000"), (Duration{Unit::kUpdates, 1000}));
  const Duration zero = Duration::parse("0");
  EXPECT_TRUE(zero.off());
  EXPECT_TRUE(Duration::parse("0e").off());
  EXPECT_FALSE(Duration::parse("1t").off());
}

TEST(Duration, MarianMultipliers) {
  EXPECT_EQ(Duration::parse("100Ku"), (Duration{Unit::kUpdates, 100000}));
  EXPECT_EQ(Duration::parse("10Gt"), (Duration{Unit::kTokens, 10000000000LL}));
  EXPECT_EQ(Duration::parse("1.5Mt"), (Duration{Unit::kTokens, 1500000}));
  EXPECT_EQ(Duration::parse("2T"), (Duration{Unit::kUpdates, 2000000000000LL}));
  EXPECT_EQ(Duration::parse("1.5K"), (Duration{Unit::kUpdates, 1500}));
}

TEST(Duration, StrRoundTrips) {
  for (const char* text : {"10000u", "2e", "500000t", "0u", "1000", "100Ku", "1.5Mt"}) {
    const Duration d = Duration::parse(text);
    EXPECT_EQ(Duration::parse(d.str()), d) << text;
  }
  EXPECT_EQ(Duration::parse("1000").str(), "1000u");
  EXPECT_EQ(Duration::parse("3e").str(), "3e");
  EXPECT_EQ(Duration::parse("7t").str(), "7t");
}

TEST(Duration, RejectsMalformedText) {
  for (const char* bad : {"", "abc", "-5", "-5u", "10x", "1.5u", "1e4", "u", " 5", "5 ", "1.2.3u",
                          ".", "Ku", "+3", "0.5e"}) {
    EXPECT_THROW(Duration::parse(bad), Error) << "'" << bad << "'";
  }
}

TEST(Duration, ErrorNamesTextAndForms) {
  try {
    Duration::parse("10x");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'10x'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("epochs"), std::string::npos) << msg;
  }
  try {
    Duration::parse("0.5e");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("whole number of epochs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace realmt
