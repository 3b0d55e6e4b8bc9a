// SACREBLEU.md sections 0, 1 and 10 ("Tokenizer checks"): exact tokenizer outputs.
#include <gtest/gtest.h>

#include "metrics/tokenizer.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {
namespace {

std::string tok(TokenizerKind k, const std::string& s) {
  std::string out, scratch;
  tokenize(k, py_rstrip(s), out, scratch);
  return out;
}

TEST(Tokenizer, Table13aIntlZh) {
  const std::string a = "Hello, world! It's 3.14 or 1,000.";
  EXPECT_EQ(tok(TokenizerKind::k13a, a), "Hello , world ! It's 3.14 or 1,000 .");
  EXPECT_EQ(tok(TokenizerKind::kIntl, a), "Hello , world ! It ' s 3.14 or 1,000.");
  EXPECT_EQ(tok(TokenizerKind::kZh, a), "Hello , world ! It's 3.14 or 1,000.");
  const std::string b = "A-B 1-2 a.b 1.b a.1";
  EXPECT_EQ(tok(TokenizerKind::k13a, b), "A-B 1 - 2 a . b 1 . b a . 1");
  EXPECT_EQ(tok(TokenizerKind::kIntl, b), "A - B 1-2 a . b 1 . b a . 1");
  EXPECT_EQ(tok(TokenizerKind::kZh, b), "A-B 1 - 2 a . b 1 . b a . 1");
  EXPECT_EQ(tok(TokenizerKind::k13a, "&quot;quoted&quot; &amp; &lt;tag&gt; &apos;x&apos;"),
            "\" quoted \" & < tag > & apos ; x & apos ;");
  EXPECT_EQ(tok(TokenizerKind::k13a, "&amp;quot;"), "& quot ;");
  EXPECT_EQ(tok(TokenizerKind::k13a, "&amp;lt;"), "<");
  EXPECT_EQ(tok(TokenizerKind::k13a, "foo<skipped>bar"), "foobar");
  EXPECT_EQ(tok(TokenizerKind::k13a, "3--4"), "3 - -4");
  EXPECT_EQ(tok(TokenizerKind::k13a, "Was it 1999."), "Was it 1999 .");
  EXPECT_EQ(tok(TokenizerKind::kIntl, "Was it 1999."), "Was it 1999.");
  const std::string c = "…«»—“”‘’";
  EXPECT_EQ(tok(TokenizerKind::k13a, c), c);
  EXPECT_EQ(tok(TokenizerKind::kIntl, c), "… « » — “ ” ‘ ’");
  EXPECT_EQ(tok(TokenizerKind::kZh, c), "… «» — “ ” ‘ ’");
  const std::string d = "他说：“你好！”2020年";
  EXPECT_EQ(tok(TokenizerKind::k13a, d), d);
  EXPECT_EQ(tok(TokenizerKind::kIntl, d), "他说 ： “ 你好 ！ ”2020年");
  EXPECT_EQ(tok(TokenizerKind::kZh, d), "他 说 ： “ 你 好 ！ ” 2020 年");
  EXPECT_EQ(tok(TokenizerKind::kZh, "abc你好def, 1,000."), "abc 你 好 def , 1,000.");
  EXPECT_EQ(tok(TokenizerKind::kIntl, "我爱北京天安门。"), "我爱北京天安门 。");
  EXPECT_EQ(tok(TokenizerKind::kIntl, "$5"), "$ 5");
}

TEST(Tokenizer, CharAndNone) {
  EXPECT_EQ(tok(TokenizerKind::kChar, "e\u0301 ab"), "e \u0301 a b");
  EXPECT_EQ(tok(TokenizerKind::kNone, "a  b\t"), "a  b");
}

TEST(Tokenizer, ZhEffectiveRanges) {
  EXPECT_TRUE(is_zh_split_char(U'\u2026'));
  EXPECT_FALSE(is_zh_split_char(U'\u2000'));
  EXPECT_FALSE(is_zh_split_char(U'\u3042'));       // Hiragana
  EXPECT_FALSE(is_zh_split_char(U'\U00020000'));   // Extension B
  EXPECT_TRUE(is_zh_split_char(U'\u9FBB'));
  EXPECT_FALSE(is_zh_split_char(U'\u9FBC'));
}

TEST(UnicodeText, PythonWhitespaceAndLower) {
  std::vector<std::string_view> t;
  py_split("a\u00a0b\u200bc\u3000d\x1c" "e\u0085f\ufeffg", t);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[1], "b\u200bc");
  EXPECT_EQ(t[4], "f\ufeffg");
  std::string low;
  py_lower("ΣΑΣ İ", low);
  EXPECT_EQ(low, "σας i\u0307");
  EXPECT_EQ(py_rstrip("ab \u2029\u00a0"), "ab");
  EXPECT_EQ(find_invalid_utf8("ok\xff"), 2u);
  EXPECT_EQ(find_invalid_utf8("\xed\xa0\x80"), 0u);  // surrogate
  EXPECT_EQ(find_invalid_utf8("é€😀"), std::string_view::npos);
}

}  // namespace
}  // namespace realmt::metrics
