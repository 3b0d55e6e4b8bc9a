// The honest split: masked source comparison (near-duplicates), dev/test made of whole groups,
// and the grouping of gettext catalogs that are copies of one another.
#include "data/split.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/error.h"
#include "data/catalog_groups.h"
#include "data/commands.h"
#include "data/line_reader.h"
#include "data/match_form.h"
#include "test_util.h"

namespace realmt::data {
namespace {

TEST(MaskedForm, NumbersPlaceholdersCaseAndPunctuationAreIgnored) {
  for (const char* s :
       {"Page %d of %d.", "page 3 of 12", "Page {0} of {1}", "PAGE %1$s OF %2$s!",
        "Page %(page)s of %(pages)d", "  Page %-5.2f  of\t%lld…", "Page %1 of %2"}) {
    EXPECT_EQ(masked_form(s), "page 0 of 0") << s;
  }
  EXPECT_EQ(masked_form("%d:%02d remaining"), "0 remaining");  // one mask for a run
  EXPECT_EQ(masked_form("1,000 files"), "0 files");
  EXPECT_EQ(masked_form("50% done"), "0 done");  // a lone % is punctuation
  EXPECT_EQ(masked_form("Save as…"), masked_form("save as"));
  EXPECT_EQ(masked_form("Straße, Ça VA?"), "strasse ça va");
  EXPECT_EQ(masked_form("{a b} set"), "a b set");      // not a brace placeholder
  EXPECT_EQ(masked_form("cafe\u0301"), "cafe\u0301");  // combining marks stay with their letter
  // Other words stay other sentences.
  EXPECT_NE(masked_form("Open file"), masked_form("Open files"));
  EXPECT_NE(masked_form("Copy %s to %s"), masked_form("Move %s to %s"));
  EXPECT_EQ(match_form("A-b", SourceMatch::kExact), "A-b");
  EXPECT_EQ(match_form("A-b", SourceMatch::kCasefold), "a-b");
  EXPECT_EQ(match_form("A-b", SourceMatch::kMasked), "a b");
}

TEST(MaskedForm, PlaceholderLengths) {
  const std::pair<const char*, size_t> cases[] = {
      {"%s", 2},   {"%-5.2f x", 6}, {"%lld", 4}, {"%1$s", 4},      {"%(name)s", 8},
      {"%1 x", 2}, {"%@", 2},       {"{0}", 3},  {"{count:d}", 9}, {"%%", 0},
      {"% d", 0},  {"%", 0},        {"{}", 0},   {"{a b}", 0},     {"%(a b)s", 0}};
  for (const auto& [text, length] : cases) EXPECT_EQ(placeholder_length(text, 0), length) << text;
}

// A corpus of `bases` sentences, each in three spellings that are one sentence masked; base b
// is labelled group "g<b / per_group>".
struct NearDuplicates {
  std::string en, fr, groups;
  NearDuplicates(int bases, int per_group) {
    for (int v = 0; v < 3; ++v) {
      for (int b = 0; b < bases; ++b) {
        const std::string w = word(b);
        const std::string forms[] = {"Copy %d " + w + " files", "copy 7 " + w + " files.",
                                     "COPY %s " + w + " FILES!"};
        add(forms[v], "Copier " + w + " " + std::to_string(v), "g" + std::to_string(b / per_group));
      }
    }
  }
  static std::string word(int b) {
    return "item" + std::string(1, char('a' + b % 26)) + char('a' + b / 26);
  }
  void add(const std::string& e, const std::string& f, const std::string& g) {
    en += e + "\n", fr += f + "\n", groups += g + "\n";
  }
};

std::set<std::string> masked_lines(const std::string& path) {
  std::set<std::string> s;
  for (const auto& line : read_lines(path)) s.insert(masked_form(line));
  return s;
}

void expect_no_overlap(const std::string& dir) {
  const auto train = masked_lines(dir + "/train.en"), dev = masked_lines(dir + "/dev.en"),
             test = masked_lines(dir + "/test.en");
  for (const auto& s : dev) EXPECT_FALSE(train.count(s) || test.count(s)) << s;
  for (const auto& s : test) EXPECT_FALSE(train.count(s)) << s;
}

TEST(SplitMasked, NearDuplicatesOfDevAndTestStayOutOfTrain) {
  test::TempDir dir;
  const NearDuplicates c(100, 10);
  SplitOptions o;
  o.input.src_path = test::write_file(dir.file("all.en"), c.en);
  o.input.tgt_path = test::write_file(dir.file("all.fr"), c.fr);
  o.out_dir = dir.file("out");
  o.dev = 10;
  o.test = 20;
  o.match = SourceMatch::kMasked;
  const SplitReport r = split_corpus(o);
  EXPECT_EQ(r.unique_sources, 100);
  EXPECT_EQ(r.dev + r.test, 30);
  EXPECT_EQ(r.train, 210);
  EXPECT_EQ(r.dropped_alternatives, 60);
  EXPECT_EQ(r.near_duplicates, 60);  // every alternative is another spelling
  expect_no_overlap(o.out_dir);
  // Compared exactly, the same corpus leaks: train holds other spellings of dev sentences.
  o.match = SourceMatch::kExact;
  split_corpus(o);
  const auto train = masked_lines(o.out_dir + "/train.en");
  int leaked = 0;
  for (const auto& s : masked_lines(o.out_dir + "/dev.en")) leaked += int(train.count(s));
  EXPECT_GT(leaked, 0);
}

TEST(SplitGroups, DevAndTestAreWholeGroupsWithNothingSharedWithTrain) {
  test::TempDir dir;
  NearDuplicates c(200, 10);  // 20 groups of 10 sentences in 3 spellings
  // One sentence in every group, and a copy of g0's first sentence in g19.
  for (int g = 0; g < 20; ++g) c.add("Cancel", "Annuler", "g" + std::to_string(g));
  c.add("copy 9 itemaa files", "Copier itemaa 9", "g19");
  SplitOptions o;
  o.input.src_path = test::write_file(dir.file("all.en"), c.en);
  o.input.tgt_path = test::write_file(dir.file("all.fr"), c.fr);
  o.groups_path = test::write_file(dir.file("all.groups"), c.groups);
  o.out_dir = dir.file("out");
  o.dev = 15;
  o.test = 25;
  o.max_group = 10;
  o.match = SourceMatch::kMasked;
  const SplitReport r = split_corpus(o);
  EXPECT_EQ(r.groups, 20);
  EXPECT_EQ(r.unique_sources, 201);
  EXPECT_EQ(r.dev, 15);
  EXPECT_EQ(r.test, 25);
  EXPECT_EQ(r.dev_groups, 2);      // 9 or 10 sources of their own each: two reach 15
  EXPECT_EQ(r.test_groups, 3);     // three reach 25
  EXPECT_GE(r.dropped_shared, 5);  // each held-out group's "Cancel"
  EXPECT_GT(r.dropped_surplus, 0);
  EXPECT_EQ(
      r.train + r.dev + r.test + r.dropped_alternatives + r.dropped_shared + r.dropped_surplus,
      621);
  expect_no_overlap(o.out_dir);
  // A held-out group has no pair in train: each French line but "Annuler" names its pair.
  std::map<std::string, std::string> group_of;
  const auto fr = read_lines(o.input.tgt_path), groups = read_lines(o.groups_path);
  for (size_t i = 0; i < fr.size(); ++i) group_of[fr[i]] = groups[i];
  std::set<std::string> held;
  for (const char* part : {"/dev.fr", "/test.fr"}) {
    for (const auto& s : read_lines(o.out_dir + part)) held.insert(group_of.at(s));
  }
  EXPECT_EQ(held.size(), 5u);
  int cancels = 0;
  for (const auto& s : read_lines(o.out_dir + "/train.fr")) {
    if (s == "Annuler")
      ++cancels;
    else
      EXPECT_FALSE(held.count(group_of.at(s))) << s;
  }
  EXPECT_EQ(cancels, 15);  // the 15 groups in train keep theirs; the held-out ones drop theirs
  // dev and test are shuffled, not one group after another in corpus order.
  const auto dev = read_lines(o.out_dir + "/dev.fr");
  const std::set<std::string> dev_set(dev.begin(), dev.end());
  std::vector<std::string> corpus_order;
  for (const auto& s : fr) {
    if (dev_set.count(s)) corpus_order.push_back(s);
  }
  EXPECT_NE(dev, corpus_order);
  // Same seed, same split.
  split_corpus(o);
  EXPECT_EQ(read_lines(o.out_dir + "/dev.fr"), dev);
}

TEST(SplitGroups, TooFewGroupsAndMisalignedLabelsAreErrors) {
  test::TempDir dir;
  const NearDuplicates c(40, 10);
  SplitOptions o;
  o.input.src_path = test::write_file(dir.file("all.en"), c.en);
  o.input.tgt_path = test::write_file(dir.file("all.fr"), c.fr);
  o.groups_path = test::write_file(dir.file("all.groups"), c.groups);
  o.out_dir = dir.file("out");
  o.match = SourceMatch::kMasked;
  o.dev = 10;
  o.test = 35;  // 4 groups of 10: not enough once dev has taken one
  o.max_group = 10;
  EXPECT_THROW(split_corpus(o), Error);
  o.test = 20;
  EXPECT_NO_THROW(split_corpus(o));
  o.max_group = 9;  // every group too large
  EXPECT_THROW(split_corpus(o), Error);
  o.max_group = 10;
  o.groups_path = test::write_file(dir.file("short.groups"), "g0\ng1\n");
  EXPECT_THROW(split_corpus(o), Error);
  o.groups_path = test::write_file(dir.file("long.groups"), c.groups + "g9\n");
  EXPECT_THROW(split_corpus(o), Error);
}

TEST(CatalogGroups, SameDomainAndMostlySharedCatalogsJoin) {
  auto keys = [](int from, int to) {
    std::vector<uint64_t> k;
    for (int i = from; i < to; ++i) k.push_back(uint64_t(1000 + i));
    return k;
  };
  auto join = [](std::vector<uint64_t> a, const std::vector<uint64_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const std::vector<std::string> domains = {"gtk30", "nautilus", "gtk30", "fork",
                                            "other", "tiny",     "common"};
  const std::vector<std::vector<uint64_t>> lists = {
      keys(0, 100),                          // gtk30
      keys(200, 300),                        // nautilus
      keys(400, 410),                        // gtk30 again (another package's copy): same group
      join(keys(240, 310), keys(500, 540)),  // 60 of its 110 in nautilus: a fork
      join(keys(600, 670), keys(0, 30)),     // 30 of 100 in gtk30: its own group
      keys(0, 10),                           // all in gtk30 but only 10 shared: its own group
      keys(700, 800)};
  const CatalogGroups g = group_catalogs(domains, lists, {});
  EXPECT_EQ(g.label, (std::vector<std::string>{"gtk30", "nautilus", "gtk30", "nautilus", "other",
                                               "tiny", "common"}));
  EXPECT_EQ(g.groups, 5);
  EXPECT_EQ(g.same_domain, 1);
  EXPECT_EQ(g.copies, 1);
  // Sources in more catalogs than max_spread do not count as shared.
  CatalogGroupOptions narrow;
  narrow.max_spread = 1;
  EXPECT_EQ(group_catalogs(domains, lists, narrow).label[3], "fork");
  EXPECT_EQ(catalog_domain("/a/fr/LC_MESSAGES/gtk30.mo"), "gtk30");
  EXPECT_EQ(catalog_domain("x"), "x");
}

TEST(SplitGroups, CommandLine) {
  test::TempDir dir;
  const NearDuplicates c(40, 10);
  const std::string en = test::write_file(dir.file("all.en"), c.en),
                    fr = test::write_file(dir.file("all.fr"), c.fr),
                    groups = test::write_file(dir.file("all.groups"), c.groups),
                    out = dir.file("out");
  EXPECT_EQ(run_split({"split", "--src", en, "--tgt", fr, "-o", out, "--dev", "5", "--test", "5",
                       "--match", "masked", "--groups", groups, "--max-group", "10"}),
            0);
  EXPECT_EQ(read_lines(out + "/dev.en").size(), 5u);
  expect_no_overlap(out);
  // Earlier command lines still work; --casefold contradicts --match masked.
  EXPECT_EQ(run_split({"split", "--src", en, "--tgt", fr, "-o", out, "--dev", "5", "--test", "5",
                       "--casefold"}),
            0);
  EXPECT_THROW(
      run_split({"split", "--src", en, "--tgt", fr, "-o", out, "--casefold", "--match", "masked"}),
      UsageError);
  EXPECT_THROW(run_split({"split", "--src", en, "--tgt", fr, "-o", out, "--match", "fuzzy"}),
               UsageError);
}

}  // namespace
}  // namespace realmt::data
