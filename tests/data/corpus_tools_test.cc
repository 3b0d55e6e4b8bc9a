// clean, split, normalization and option suggestions.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "data/clean.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/line_reader.h"
#include "data/normalize.h"
#include "data/split.h"
#include "test_util.h"

namespace realmt::data {
namespace {

TEST(Clean, DropsEachKindAndCountsIt) {
  test::TempDir dir;
  CleanOptions o;
  o.input.src_path = test::write_file(
      dir.file("in.en"),
      "Hello world\n\nthe same\nthe same\none two three four five\nshort\ncafe\u0301\n");
  o.input.tgt_path =
      test::write_file(dir.file("in.fr"),
                       "Bonjour le monde\nvide\nla même\nla même\nun deux trois quatre cinq\n"
                       "une phrase beaucoup beaucoup trop longue pour si peu\ncafé\n");
  o.src_out = dir.file("out.en");
  o.tgt_out = dir.file("out.fr");
  o.dropped_out = dir.file("dropped.tsv");
  o.max_words = 4;
  o.max_ratio = 3.0;
  o.normalization = Normalization::kNfc;
  const CleanReport r = clean_corpus(o);
  EXPECT_EQ(r.read, 7);
  EXPECT_EQ(r.empty, 1);
  EXPECT_EQ(r.duplicate, 1);
  EXPECT_EQ(r.too_long, 2);  // five words; and the long French sentence
  EXPECT_EQ(r.bad_ratio, 0);
  EXPECT_EQ(r.kept, 3);
  EXPECT_EQ(r.normalized, 1);
  EXPECT_EQ(read_lines(o.src_out),
            (std::vector<std::string>{"Hello world", "the same", "caf\u00e9"}));
  const auto dropped = read_lines(o.dropped_out);
  ASSERT_EQ(dropped.size(), 4u);
  EXPECT_EQ(dropped[0], "empty\t2\t\tvide");
  EXPECT_EQ(dropped[1].substr(0, 12), "duplicate\t4\t");
  o.max_words = 0;
  const CleanReport ratio = clean_corpus(o);
  EXPECT_EQ(ratio.bad_ratio, 1);  // "short" vs a 10x longer sentence
}

TEST(Split, NoSourceSentenceCrossesSplits) {
  test::TempDir dir;
  std::string en, fr;
  for (int i = 0; i < 300; ++i) {
    const std::string s = "sentence " + std::to_string(i % 100);  // each source 3 times
    en += (i % 200 == 7 ? "SENTENCE " + std::to_string(i % 100) : s) + "\n";
    fr += "phrase " + std::to_string(i) + "\n";
  }
  SplitOptions o;
  o.input.src_path = test::write_file(dir.file("all.en"), en);
  o.input.tgt_path = test::write_file(dir.file("all.fr"), fr);
  o.out_dir = dir.file("out");
  o.dev = 10;
  o.test = 20;
  o.match = SourceMatch::kCasefold;
  const SplitReport r = split_corpus(o);
  EXPECT_EQ(r.unique_sources, 100);
  EXPECT_EQ(r.dev, 10);
  EXPECT_EQ(r.test, 20);
  EXPECT_EQ(r.train, 210);
  EXPECT_EQ(r.dropped_alternatives, 60);
  auto fold = [](std::vector<std::string> v) {
    std::set<std::string> s;
    for (auto& x : v) s.insert(casefold(x));
    return s;
  };
  const auto train = fold(read_lines(o.out_dir + "/train.en"));
  const auto dev = fold(read_lines(o.out_dir + "/dev.en"));
  const auto test = fold(read_lines(o.out_dir + "/test.en"));
  EXPECT_EQ(dev.size(), 10u);
  EXPECT_EQ(test.size(), 20u);
  for (const auto& s : dev) EXPECT_FALSE(train.count(s) || test.count(s)) << s;
  for (const auto& s : test) EXPECT_FALSE(train.count(s)) << s;
  // Same seed, same split; another seed, another one.
  const auto first_dev = read_lines(o.out_dir + "/dev.en");
  split_corpus(o);
  EXPECT_EQ(read_lines(o.out_dir + "/dev.en"), first_dev);
  o.seed = 2;
  split_corpus(o);
  EXPECT_NE(read_lines(o.out_dir + "/dev.en"), first_dev);
  o.dev = 90;
  EXPECT_THROW(split_corpus(o), Error);  // 90 + 20 >= 100 sources
}

TEST(Normalize, NfcNfkcAndCasefold) {
  EXPECT_EQ(normalize("cafe\u0301", Normalization::kNfc), "caf\u00e9");
  EXPECT_EQ(normalize("\ufb01n", Normalization::kNfc), "\ufb01n");
  EXPECT_EQ(normalize("\ufb01n", Normalization::kNfkc), "fin");
  EXPECT_EQ(casefold("Ça VA"), "ça va");
  EXPECT_THROW(parse_normalization("nfd"), Error);
}

TEST(Cli, SubcommandsParseWithOptionSet) {
  // A misspelt option is a usage error naming the closest one (realmt-data exits 2 for it).
  try {
    run_clean({"clean", "--src", "a", "--tgt", "b", "--src-out", "x", "--tgt-out", "y",
               "--max-wrds", "3"});
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean '--max-words'"), std::string::npos)
        << e.what();
  }
  // Required options and the input rules are usage errors too.
  EXPECT_THROW(run_clean({"clean", "--src", "a", "--tgt", "b"}), UsageError);
  EXPECT_THROW(run_clean({"clean", "--src", "a", "--tsv", "t", "--src-out", "x", "--tgt-out", "y"}),
               UsageError);
  EXPECT_THROW(run_sgm2txt({"sgm2txt", "a.sgm", "-i", "b.sgm"}), UsageError);
  EXPECT_THROW(run_vocab({"vocab", "-i", "a", "-o", "v.spm", "--model-type", "bigram"}),
               UsageError);
  // --help and --version print and return 0 without doing anything.
  EXPECT_EQ(run_split({"split", "--help"}), 0);
  EXPECT_EQ(run_stats({"stats", "--version"}), 0);
}

}  // namespace
}  // namespace realmt::data
