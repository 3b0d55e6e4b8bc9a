#include "data/sgm_reader.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "test_util.h"

namespace realmt::data {
namespace {

using test::TempDir;
using test::write_file;

TEST(SgmReader, SegmentsInDocumentOrderWithEntitiesDecoded) {
  TempDir dir;
  const auto path =
      write_file(dir.file("t.sgm"),
                 "<srcset setid=\"newstest2014\" srclang=\"any\">\n"
                 "<doc sysid=\"ref\" docid=\"1009-lemondefr\" genre=\"news\" origlang=\"fr\">\n"
                 "<p>\n"
                 "<seg id=\"2\"> Tom &amp; Jerry &lt;3 &quot;cats&quot; &#233;t&#xE9; </seg>\n"
                 "<seg id=\"1\">second &apos;line&apos;&nbsp;&copy;</seg>\n"
                 "</p>\n</doc>\n"
                 "<doc docid='other'><seg id=\"1\">AT&T & co</seg></doc>\n"
                 "</srcset>\n");
  const SgmDocument doc = read_sgm(path);
  ASSERT_EQ(doc.segments.size(), 3u);
  EXPECT_EQ(doc.segments[0].text, "Tom & Jerry <3 \"cats\" été");
  EXPECT_EQ(doc.segments[0].id, "2");
  EXPECT_EQ(doc.segments[0].docid, "1009-lemondefr");
  EXPECT_EQ(doc.segments[0].line, 4);
  EXPECT_EQ(doc.segments[1].text, "second 'line'\u00a0&copy;");  // unknown entity kept, counted
  EXPECT_EQ(doc.unknown_entities, 1);
  EXPECT_EQ(doc.segments[2].docid, "other");
  EXPECT_EQ(doc.segments[2].text, "AT&T & co");  // bare ampersands are text
}

TEST(SgmReader, UnclosedSegmentNamesFileAndLine) {
  TempDir dir;
  const auto path =
      write_file(dir.file("t.sgm"), "<doc docid=\"d\">\n<seg id=\"1\">open\n</doc>\n");
  try {
    read_sgm(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2"), std::string::npos) << e.what();
  }
}

TEST(SgmReader, BadNumericEntityIsAnError) {
  TempDir dir;
  const auto path = write_file(dir.file("t.sgm"), "<seg id=\"1\">x &#xD800; y</seg>\n");
  EXPECT_THROW(read_sgm(path), Error);
}

TEST(SgmReader, LineBreakEntitiesBecomeSpacesSoASegmentStaysOneLine) {
  TempDir dir;
  const auto path = write_file(dir.file("t.sgm"),
                               "<seg id=\"1\">one&#13;two&#10;three&#x2028;four&#xD;</seg>\n"
                               "<seg id=\"2\">&#13;&#9;tab</seg>\n");
  const SgmDocument doc = read_sgm(path);
  ASSERT_EQ(doc.segments.size(), 2u);
  EXPECT_EQ(doc.segments[0].text, "one two three four");
  EXPECT_EQ(doc.segments[1].text, "tab");
}

// Found by sgm_fuzz: a raw CR inside a segment came out inside the text, so sgm2txt's one line
// per segment broke in two for any reader that splits on CR.
TEST(SgmReader, RawLineBreaksInsideASegmentBecomeSpaces) {
  TempDir dir;
  const auto path = write_file(dir.file("t.sgm"),
                               "<seg id=\"1\">AT&T\rtwo\vthree\fx\x1c"
                               "y\xC2\x85z\xE2\x80\xA8w\xE2\x80\xA9v</seg>\r\n"
                               "<seg id=\"2\">caf\xC3\xA9 \xE2\x80\x99</seg>\n");
  const SgmDocument doc = read_sgm(path);
  ASSERT_EQ(doc.segments.size(), 2u);
  EXPECT_EQ(doc.segments[0].text, "AT&T two three x y z w v");
  EXPECT_EQ(doc.segments[1].text, "caf\xC3\xA9 \xE2\x80\x99");  // other multi-byte text untouched
}

TEST(SgmReader, AFileWithoutSegmentsIsAnError) {
  TempDir dir;
  const auto path =
      write_file(dir.file("empty.sgm"), "<srcset>\n<doc docid=\"d\">\n</doc>\n</srcset>\n");
  try {
    read_sgm(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": no <seg>"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace realmt::data
