#include "data/parallel_reader.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "test_util.h"

namespace realmt::data {
namespace {

using test::TempDir;
using test::write_file;

std::vector<SentencePair> read_all(ParallelReader& r) {
  std::vector<SentencePair> out;
  SentencePair p;
  while (r.next(p)) out.push_back(p);
  return out;
}

TEST(ParallelReader, TwoFilesSkipAndCountEmptyAndLongPairs) {
  TempDir dir;
  ParallelReaderOptions o;
  o.src_path = write_file(dir.file("a.en"), "one\n\nthree four five six\nseven\n");
  o.tgt_path = test::write_gzip(dir.file("a.fr.gz"), "un\ndeux\ntrois quatre\n\n");
  o.max_words = 3;
  ParallelReader r(o);
  const auto pairs = read_all(r);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].src, "one");
  EXPECT_EQ(pairs[0].tgt, "un");
  EXPECT_EQ(pairs[0].line, 1);
  EXPECT_EQ(r.stats().lines, 4);
  EXPECT_EQ(r.stats().empty, 2);
  EXPECT_EQ(r.stats().too_long, 1);
  EXPECT_EQ(r.stats().kept, 1);
}

TEST(ParallelReader, TsvTakesTheFirstTwoColumns) {
  TempDir dir;
  ParallelReaderOptions o;
  o.src_path =
      write_file(dir.file("t.tsv"), "Go.\tVa !\tCC-BY 2.0 (France) #1\nHi.\tSalut !\n\tvide\n");
  ParallelReader r(o);
  const auto pairs = read_all(r);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].tgt, "Va !");
  EXPECT_EQ(pairs[1].src, "Hi.");
  EXPECT_EQ(r.stats().empty, 1);
  o.swap_tsv_columns = true;
  ParallelReader swapped(o);
  EXPECT_EQ(read_all(swapped)[0].src, "Va !");
}

TEST(ParallelReader, TsvLineWithoutTabIsAnError) {
  TempDir dir;
  ParallelReaderOptions o;
  o.src_path = write_file(dir.file("t.tsv"), "a\tb\nno tab here\n");
  ParallelReader r(o);
  SentencePair p;
  EXPECT_TRUE(r.next(p));
  try {
    r.next(p);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(o.src_path + ":2"), std::string::npos) << e.what();
  }
}

TEST(ParallelReader, LineCountMismatchNamesBothFiles) {
  TempDir dir;
  ParallelReaderOptions o;
  o.src_path = write_file(dir.file("m.en"), "a\nb\nc\n");
  o.tgt_path = write_file(dir.file("m.fr"), "a\nb\n");
  ParallelReader r(o);
  try {
    read_all(r);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(o.tgt_path + " has 2 lines"), std::string::npos) << msg;
    EXPECT_NE(msg.find(o.src_path + " has line 3"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace realmt::data
