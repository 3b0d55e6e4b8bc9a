// sacreBLEU 2.6.0's tokenizers: exact tokenizer outputs.
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

// tokenize_to_tokens (the fused 13a pass) must give exactly tokenize(...).split(): exhaustively
// over short strings of units that exercise every rule and their interactions, then randomly
// over longer ones.
std::vector<std::string> reference_tokens(TokenizerKind k, std::string_view line) {
  std::string out, scratch;
  tokenize(k, line, out, scratch);
  std::vector<std::string_view> v;
  py_split(out, v);
  return {v.begin(), v.end()};
}

std::vector<std::string> fused_tokens(TokenizerKind k, std::string_view line) {
  std::string bytes = "xyz", scratch;  // a non-empty start: offsets are into the whole buffer
  std::vector<uint32_t> ends = {3};
  tokenize_to_tokens(k, line, bytes, ends, scratch);
  std::vector<std::string> v;
  for (size_t i = 1; i < ends.size(); ++i)
    v.emplace_back(bytes.substr(ends[i - 1], ends[i] - ends[i - 1]));
  return v;
}

TEST(Tokenizer, Fused13aEqualsRulesThenSplit) {
  const std::vector<std::string> units = {"a",      "1",      ".",      ",",         "-",  " ",
                                          "\t",     "!",      "&quot;", "<skipped>", "\n", "\u00e9",
                                          "\u00a0", "\u2009", "&",      "'"};
  size_t checked = 0;
  std::vector<size_t> idx;
  for (size_t len = 0; len <= 5; ++len) {
    idx.assign(len, 0);
    for (;;) {
      std::string line;
      for (size_t i : idx) line += units[i];
      ASSERT_EQ(fused_tokens(TokenizerKind::k13a, line),
                reference_tokens(TokenizerKind::k13a, line))
          << "line: '" << line << "'";
      ++checked;
      size_t pos = 0;
      while (pos < len && ++idx[pos] == units.size()) idx[pos++] = 0;
      if (pos == len) break;
    }
  }
  EXPECT_GT(checked, 1000000u);
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(state >> 33);
  };
  const std::vector<std::string> more = {
      "b",      "2",      "0",     "9",    ".",    ",",      "-",      " ",      "  ",     "(",
      ")",      "\"",     "&amp;", "&lt;", "&gt;", "\u00ab", "\u00bb", "\u3000", "\u2028", "x-\n",
      "\u00c2", "\u4e2d", "$",     "%",    "~",    "`",      "{",      "\x1c",   "\r"};
  for (int trial = 0; trial < 100000; ++trial) {
    std::string line;
    const size_t len = next() % 40;
    for (size_t i = 0; i < len; ++i) {
      const auto& u = (next() & 1) ? units : more;
      line += u[next() % u.size()];
    }
    ASSERT_EQ(fused_tokens(TokenizerKind::k13a, line), reference_tokens(TokenizerKind::k13a, line))
        << "line: '" << line << "'";
  }
  for (TokenizerKind k :
       {TokenizerKind::kIntl, TokenizerKind::kZh, TokenizerKind::kChar, TokenizerKind::kNone}) {
    for (const char* line :
         {"Hello, world! It's 3.14 or 1,000.", "他说：“你好！”2020年 a\u00a0b", "", "  "}) {
      EXPECT_EQ(fused_tokens(k, line), reference_tokens(k, line))
          << tokenizer_name(k) << ": " << line;
    }
  }
}

TEST(Tokenizer, CharAndNone) {
  EXPECT_EQ(tok(TokenizerKind::kChar, "e\u0301 ab"), "e \u0301 a b");
  EXPECT_EQ(tok(TokenizerKind::kNone, "a  b\t"), "a  b");
}

TEST(Tokenizer, ZhEffectiveRanges) {
  EXPECT_TRUE(is_zh_split_char(U'\u2026'));
  EXPECT_FALSE(is_zh_split_char(U'\u2000'));
  EXPECT_FALSE(is_zh_split_char(U'\u3042'));      // Hiragana
  EXPECT_FALSE(is_zh_split_char(U'\U00020000'));  // Extension B
  EXPECT_TRUE(is_zh_split_char(U'\u9FBB'));
  EXPECT_FALSE(is_zh_split_char(U'\u9FBC'));
}

TEST(UnicodeText, PythonWhitespaceAndLower) {
  std::vector<std::string_view> t;
  py_split(
      "a\u00a0b\u200bc\u3000d\x1c"
      "e\u0085f\ufeffg",
      t);
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
