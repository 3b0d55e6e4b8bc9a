#include "data/mo_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "data/commands.h"
#include "data/line_reader.h"
#include "test_util.h"

namespace realmt::data {
namespace {

// Writes a .mo catalog (little-endian, as msgfmt does) of (msgid, msgstr) pairs; msgids must be
// sorted as in a real catalog (the reader does not need it, gettext does).
std::string write_mo(const std::string& path,
                     std::vector<std::pair<std::string, std::string>> entries) {
  const uint32_t n = uint32_t(entries.size());
  std::string head(28, '\0'), tables(16 * size_t(n), '\0'), strings;
  const uint32_t orig = 28, trans = 28 + 8 * n, base = 28 + 16 * n;
  auto put = [](std::string& s, size_t at, uint32_t v) { std::memcpy(&s[at], &v, 4); };
  put(head, 0, 0x950412de), put(head, 8, n), put(head, 12, orig), put(head, 16, trans);
  for (uint32_t i = 0; i < n; ++i) {
    for (int side = 0; side < 2; ++side) {
      const std::string& s = side ? entries[i].second : entries[i].first;
      put(tables, (side ? 8 * n : 0) + 8 * i, uint32_t(s.size()));
      put(tables, (side ? 8 * n : 0) + 8 * i + 4, base + uint32_t(strings.size()));
      strings += s + '\0';
    }
  }
  return test::write_file(path, head + tables + strings);
}

TEST(MoCatalog, ReadsContextsPluralsAndCharset) {
  test::TempDir dir;
  const auto path = write_mo(
      dir.file("fr.mo"),
      {
          {"", "Content-Type: text/plain; charset=ISO-8859-1\n"},
          {"menu\x04_Open", "_Ouvrir"},
          {std::string("%d file\0%d files", 16), std::string("%d fichier\0%d fichiers", 22)},
          {"Caf\xe9", "Caf\xe9 cr\xe8me"},
      });
  const auto entries = read_mo(path);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].context, "menu");
  EXPECT_EQ(entries[0].msgid, "_Open");
  EXPECT_EQ(entries[1].msgid, "%d file");
  EXPECT_EQ(entries[1].msgid_plural, "%d files");
  ASSERT_EQ(entries[1].msgstr.size(), 2u);
  EXPECT_EQ(entries[1].msgstr[1], "%d fichiers");
  EXPECT_EQ(entries[2].msgstr[0], "Caf\u00e9 cr\u00e8me");  // converted from Latin-1
}

TEST(MoCatalog, UnknownCharsetIsAnErrorNamingItNotSilentlyEmptyEntries) {
  test::TempDir dir;
  const auto path =
      write_mo(dir.file("x.mo"), {
                                     {"", "Content-Type: text/plain; charset=NO-SUCH-CHARSET-42\n"},
                                     {"Hello", "Bonjour"},
                                 });
  try {
    read_mo(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": unknown charset 'NO-SUCH-CHARSET-42'"),
              std::string::npos)
        << e.what();
  }
}

TEST(MoCatalog, TruncatedOrForeignFilesAreErrors) {
  test::TempDir dir;
  EXPECT_THROW(read_mo(test::write_file(dir.file("x.mo"), std::string(40, 'x'))), Error);
  const auto good = write_mo(dir.file("g.mo"), {{"Hello", "Bonjour"}});
  std::string bytes = test::read_bytes(good);
  bytes.resize(bytes.size() - 10);
  try {
    read_mo(test::write_file(dir.file("t.mo"), bytes));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.mo: entry 0"), std::string::npos) << e.what();
  }
}

TEST(MoCatalog, CleansUiText) {
  EXPECT_EQ(clean_ui_text("_Open File"), "Open File");
  EXPECT_EQ(clean_ui_text("Save &As..."), "Save As...");
  EXPECT_EQ(clean_ui_text("~Fichier"), "Fichier");
  EXPECT_EQ(clean_ui_text("<b>Bold</b>  and\t<span weight=\"x\">more</span>"), "Bold and more");
  EXPECT_EQ(clean_ui_text("Tom &amp; Jerry & co"), "Tom & Jerry & co");
  EXPECT_EQ(clean_ui_text("file_name and other_name"), "file_name and other_name");
  EXPECT_EQ(clean_ui_text("a < b > c"), "a < b > c");
  EXPECT_EQ(count_letters_outside_format("%s: %d"), 0);
  EXPECT_EQ(count_letters_outside_format("%(name)s {0} %1$s ok"), 2);
  EXPECT_EQ(count_letters_outside_format("été"), 3);
}

TEST(MoCatalog, FilterVerdicts) {
  MoFilterOptions o;
  std::string en, fr;
  auto verdict = [&](std::string id, std::string str) {
    MoEntry e;
    e.msgid = std::move(id);
    e.msgstr = {std::move(str)};
    return clean_mo_entry(e, o, en, fr);
  };
  EXPECT_EQ(verdict("_Open the file", "_Ouvrir le fichier"), MoVerdict::kKept);
  EXPECT_EQ(en, "Open the file");
  EXPECT_EQ(fr, "Ouvrir le fichier");
  EXPECT_EQ(verdict("Open", ""), MoVerdict::kUntranslated);
  EXPECT_EQ(verdict("Description", "Description"), MoVerdict::kUntranslated);
  EXPECT_EQ(verdict("line one\nline two", "ligne un\nligne deux"), MoVerdict::kMultiLine);
  EXPECT_EQ(verdict("%s: %s", "%s : %s"), MoVerdict::kFormatOnly);
  EXPECT_EQ(verdict("Yes", "Oui, absolument, sans aucun doute possible"), MoVerdict::kRatio);
  EXPECT_EQ(verdict("bad \xff", "mauvais"), MoVerdict::kBadEncoding);
  o.max_words = 2;
  EXPECT_EQ(verdict("Open the file", "Ouvrir le fichier"), MoVerdict::kTooLong);
}

// --groups-out: a label a kept pair, the same for two packages' copies of one catalog and for a
// catalog sharing most of its sources (masked) with another.
TEST(MoCatalog, Mo2pairsLabelsEachPairWithItsCatalogGroup) {
  test::TempDir dir;
  std::vector<std::pair<std::string, std::string>> app, fork, other;
  for (int i = 0; i < 30; ++i) {
    const std::string w = std::string(1, char('a' + i % 26)) + char('a' + i / 26);
    app.emplace_back("Open file " + w, "Ouvrir le fichier " + w);
    fork.emplace_back("OPEN file " + w + "...",
                      "Ouvre le fichier " + w);  // masked: the same sources
    other.emplace_back("Close window " + w, "Fermer la fenetre " + w);
  }
  std::filesystem::create_directories(dir.file("p1")),
      std::filesystem::create_directories(dir.file("p2"));
  const std::string list = test::write_file(
      dir.file("list"), write_mo(dir.file("p1/app.mo"), app) + "\n" +
                            write_mo(dir.file("p2/app.mo"), {{"Quit now", "Quitter"}}) + "\n" +
                            write_mo(dir.file("p1/fork.mo"), fork) + "\n" +
                            write_mo(dir.file("p2/other.mo"), other) + "\n");
  ASSERT_EQ(run_mo2pairs({"mo2pairs", "--list", list, "--src-out", dir.file("en"), "--tgt-out",
                          dir.file("fr"), "--groups-out", dir.file("groups")}),
            0);
  const auto groups = read_lines(dir.file("groups"));
  ASSERT_EQ(groups.size(), read_lines(dir.file("en")).size());
  ASSERT_EQ(groups.size(), 91u);
  EXPECT_EQ(std::count(groups.begin(), groups.end(), "app"), 61);  // app, its copy and the fork
  EXPECT_EQ(std::count(groups.begin(), groups.end(), "other"), 30);
  EXPECT_EQ(groups[30], "app");  // the second package's app.mo
}

}  // namespace
}  // namespace realmt::data
