#include "data/batch_generator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "core/error.h"
#include "test_util.h"

namespace realmt::data {
namespace {

class BatchGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    corpus_ = test::make_corpus(3000, 30);
    corpus_.src[10] = "";  // empty pairs are never used
    corpus_.tgt[20] = "";
    options_.src_path = test::write_file(dir_.file("c.en"), corpus_.src_text());
    options_.tgt_path = test::write_file(dir_.file("c.fr"), corpus_.tgt_text());
    options_.vocab_path = test::test_vocab();
    options_.mini_batch = 0;
    options_.mini_batch_words = 400;
    options_.maxi_batch = 5;
    options_.max_length = 0;
    options_.seed = 42;
  }

  // All batches of the next epoch (until next() returns nullopt).
  static std::vector<Batch> epoch(BatchGenerator& g) {
    std::vector<Batch> out;
    while (auto b = g.next()) out.push_back(std::move(*b));
    return out;
  }

  test::TempDir dir_;
  test::Corpus corpus_;
  BatchGeneratorOptions options_;
};

void expect_same(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].ids, b[i].ids) << "batch " << i;
    EXPECT_EQ(a[i].src, b[i].src) << "batch " << i;
    EXPECT_EQ(a[i].tgt, b[i].tgt) << "batch " << i;
  }
}

TEST_F(BatchGeneratorTest, BatchesAreWellFormedAndHonourTheTokenBudget) {
  BatchGenerator g(options_);
  const Vocab& v = g.vocab();
  const auto batches = epoch(g);
  ASSERT_GT(batches.size(), 10u);
  for (const Batch& b : batches) {
    EXPECT_LE(b.size * std::max(b.src_len, b.tgt_len), options_.mini_batch_words);
    ASSERT_EQ(b.src.size(), size_t(b.size * b.src_len));
    ASSERT_EQ(b.tgt.size(), size_t(b.size * b.tgt_len));
    int64_t src_tokens = 0;
    for (int64_t r = 0; r < b.size; ++r) {
      // Row r: the encoded source line, eos, then padding.
      const auto ids = v.encode(corpus_.src[size_t(b.ids[size_t(r)])]);
      for (size_t k = 0; k < ids.size(); ++k) ASSERT_EQ(b.src_at(r, int64_t(k)), ids[k]);
      ASSERT_EQ(b.src_at(r, int64_t(ids.size())), kEosId);
      for (int64_t k = int64_t(ids.size()) + 1; k < b.src_len; ++k)
        ASSERT_EQ(b.src_at(r, k), kPadId);
      src_tokens += int64_t(ids.size()) + 1;
      EXPECT_EQ(v.decode(std::vector<int32_t>(b.tgt.begin() + r * b.tgt_len,
                                              b.tgt.begin() + (r + 1) * b.tgt_len)),
                corpus_.tgt[size_t(b.ids[size_t(r)])]);
    }
    EXPECT_EQ(b.src_tokens, src_tokens);
  }
}

TEST_F(BatchGeneratorTest, EveryUsablePairOncePerEpoch) {
  options_.mini_batch = 16;
  BatchGenerator g(options_);
  for (int e = 0; e < 2; ++e) {
    EXPECT_EQ(g.epoch(), e);
    std::multiset<int64_t> seen;
    for (const Batch& b : epoch(g)) {
      EXPECT_LE(b.size, 16);
      EXPECT_EQ(b.epoch, e);
      seen.insert(b.ids.begin(), b.ids.end());
    }
    EXPECT_EQ(seen.size(), corpus_.src.size() - 2);
    EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), seen.size());
    EXPECT_EQ(seen.count(10) + seen.count(20), 0u);
  }
  EXPECT_EQ(g.stats().empty_pairs, 2);
}

TEST_F(BatchGeneratorTest, SameSeedSameBatchesWhateverTheThreads) {
  BatchGenerator a(options_);
  options_.threads = 3;
  options_.prefetch = 0;
  BatchGenerator b(options_);
  const auto ea = epoch(a), eb = epoch(b);
  expect_same(ea, eb);
  expect_same(epoch(a), epoch(b));  // and the second epoch
  options_.seed = 43;
  BatchGenerator c(options_);
  EXPECT_NE(epoch(c)[0].ids, ea[0].ids);
}

TEST_F(BatchGeneratorTest, EpochsDifferAndShuffleOffKeepsFileOrderInPools) {
  BatchGenerator g(options_);
  EXPECT_NE(epoch(g)[0].ids, epoch(g)[0].ids);
  options_.shuffle = false;
  options_.mini_batch = 10;
  options_.mini_batch_words = 0;
  options_.maxi_batch = 1;
  BatchGenerator plain(options_);
  const auto batches = epoch(plain);
  EXPECT_EQ(std::set<int64_t>(batches[0].ids.begin(), batches[0].ids.end()),
            (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_F(BatchGeneratorTest, RestoredPositionContinuesExactly) {
  options_.threads = 2;
  BatchGenerator full(options_);
  std::vector<Batch> reference = epoch(full);
  const size_t first_epoch = reference.size();
  for (auto& b : epoch(full)) reference.push_back(std::move(b));
  // Stop after k batches (mid-pool, at a pool end, at the epoch end), save, resume elsewhere.
  for (size_t k : {size_t(0), size_t(1), size_t(7), first_epoch - 1, first_epoch}) {
    BatchGenerator first(options_);
    std::string state;
    for (size_t i = 0; i < k; ++i) ASSERT_TRUE(first.next().has_value());
    if (k == first_epoch) {
      ASSERT_FALSE(first.next().has_value());
    }
    state = first.state();
    BatchGenerator resumed(options_);
    resumed.restore(state);
    std::vector<Batch> rest;
    for (int e = 0; e < (k == first_epoch ? 1 : 2); ++e) {
      for (auto& b : epoch(resumed)) rest.push_back(std::move(b));
    }
    std::vector<Batch> expected(reference.begin() + long(k), reference.end());
    expect_same(rest, expected);
  }
}

TEST_F(BatchGeneratorTest, RestoreRefusesOtherOptions) {
  BatchGenerator g(options_);
  g.next();
  const std::string state = g.state();
  options_.mini_batch_words = 500;
  BatchGenerator other(options_);
  try {
    other.restore(state);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mini-batch-words=400"), std::string::npos) << e.what();
  }
  EXPECT_THROW(other.restore("garbage"), Error);
}

TEST_F(BatchGeneratorTest, MaxLengthSkipsOrCrops) {
  options_.max_length = 8;
  options_.mini_batch_words = 2000;
  BatchGenerator skip(options_);
  int64_t pairs = 0;
  for (const Batch& b : epoch(skip)) {
    pairs += b.size;
    EXPECT_LE(std::max(b.src_len, b.tgt_len), 9);
  }
  // The producer runs ahead into the next epoch meanwhile: stats() counts what was taken only
  // (it once counted the read-ahead too, and this test failed on a loaded machine).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto s = skip.stats();
  EXPECT_GT(s.too_long, 0);
  EXPECT_EQ(pairs + s.too_long, int64_t(corpus_.src.size()) - 2);
  options_.max_length_crop = true;
  BatchGenerator crop(options_);
  pairs = 0;
  for (const Batch& b : epoch(crop)) {
    pairs += b.size;
    EXPECT_LE(std::max(b.src_len, b.tgt_len), 9);
    for (int64_t r = 0; r < b.size; ++r) {
      // A cropped row still ends with eos.
      int64_t len = 0;
      while (len < b.src_len && b.src_at(r, len) != kPadId) ++len;
      EXPECT_EQ(b.src_at(r, len - 1), kEosId);
    }
  }
  EXPECT_EQ(pairs, int64_t(corpus_.src.size()) - 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(crop.stats().cropped, s.too_long);
}

TEST_F(BatchGeneratorTest, NoPairFittingMaxLengthIsAnErrorNotEndlessEmptyEpochs) {
  // Every pair has a side over max-length: an epoch would yield no batch, and a trainer would
  // loop over empty epochs forever.
  std::string src, tgt;
  for (int i = 0; i < 50; ++i) {
    src += corpus_.src[size_t(i)] + " " + corpus_.src[size_t(i)] + " one two three four five six\n";
    tgt +=
        corpus_.tgt[size_t(i)] + " " + corpus_.tgt[size_t(i)] + " un deux trois quatre cinq six\n";
  }
  options_.src_path = test::write_file(dir_.file("long.en"), src);
  options_.tgt_path = test::write_file(dir_.file("long.fr"), tgt);
  options_.max_length = 3;
  for (const int prefetch : {0, 4}) {
    options_.prefetch = prefetch;
    BatchGenerator g(options_);
    try {
      g.next();
      FAIL() << "expected an error (prefetch " << prefetch << ")";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("no sentence pair fits max-length 3 (50 of 50 usable pairs"),
                std::string::npos)
          << msg;
    }
  }
  // Cropping makes every pair fit.
  options_.max_length_crop = true;
  BatchGenerator crop(options_);
  EXPECT_EQ(epoch(crop).empty(), false);
}

TEST_F(BatchGeneratorTest, GzipAndTsvCorporaGiveTheSameBatches) {
  BatchGenerator plain(options_);
  const auto reference = epoch(plain);
  auto o = options_;
  o.src_path = test::write_gzip(dir_.file("c.en.gz"), corpus_.src_text());
  o.tgt_path = test::write_gzip(dir_.file("c.fr.gz"), corpus_.tgt_text());
  o.temp_dir = dir_.path().string();
  BatchGenerator gz(o);
  expect_same(epoch(gz), reference);
  std::string tsv;
  for (size_t i = 0; i < corpus_.src.size(); ++i)
    tsv += corpus_.src[i] + "\t" + corpus_.tgt[i] + "\n";
  o.src_path = test::write_file(dir_.file("c.tsv"), tsv);
  o.tgt_path.clear();
  BatchGenerator from_tsv(o);
  expect_same(epoch(from_tsv), reference);
}

TEST_F(BatchGeneratorTest, CorpusErrorsNameFileAndLine) {
  auto o = options_;
  o.tgt_path = test::write_file(dir_.file("short.fr"), "un\ndeux\n");
  try {
    BatchGenerator g(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line counts differ"), std::string::npos) << e.what();
  }
  o.tgt_path = test::write_file(dir_.file("bad.fr"), corpus_.tgt_text() + "caf\xe9\n");
  o.src_path = test::write_file(dir_.file("bad.en"), corpus_.src_text() + "coffee\n");
  try {
    BatchGenerator g(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(o.tgt_path + ":3001"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace realmt::data
