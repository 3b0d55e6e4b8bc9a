#include "common/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace realmt {
namespace {

TEST(Utf8, ValidatesAndFindsTheFirstBadByte) {
  EXPECT_TRUE(is_valid_utf8("plain ascii text, long enough for the fast path"));
  EXPECT_TRUE(is_valid_utf8("déjà vu — « guillemets » 😀"));
  EXPECT_EQ(find_invalid_utf8("abc\xff"), 3u);
  EXPECT_EQ(find_invalid_utf8("0123456789\xc3"), 10u);   // truncated sequence at the end
  EXPECT_EQ(find_invalid_utf8("a\xc0\xaf"), 1u);         // overlong '/'
  EXPECT_EQ(find_invalid_utf8("a\xed\xa0\x80"), 1u);     // UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(find_invalid_utf8("ok\x80"), 2u);            // stray continuation byte
  EXPECT_EQ(count_code_points("déjà"), 4u);
  EXPECT_EQ(count_words("  two\twords "), 2u);
}

// Every code point round-trips through the encoder and the validator at each length's edges.
TEST(Utf8, EncodesEachLength) {
  std::string s;
  for (char32_t c : {U'\u0000', U'\u007F', U'\u0080', U'\u07FF', U'\u0800', U'\uFFFF',
                     U'\U00010000', U'\U0010FFFF'})
    append_utf8(s, c);
  EXPECT_EQ(
      s, std::string(
             "\0\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 20));
  EXPECT_TRUE(is_valid_utf8(s));
  EXPECT_EQ(count_code_points(s), 8u);
}

}  // namespace
}  // namespace realmt
