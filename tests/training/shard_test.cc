// Batch dealing for data parallelism (training/shard.h): every rank's copy of the loader, round
// after round.
#include "training/shard.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "core/error.h"

namespace realmt::training {
namespace {

// A stream of `count` batches; batch i has i + 1 sentence pairs whose line ids are 100 * i + row.
struct Stream {
  int count, drawn = 0;
  std::optional<data::Batch> next() {
    if (drawn == count) {
      drawn = 0;  // as the BatchGenerator: nullopt once, then the next epoch
      return std::nullopt;
    }
    data::Batch b;
    b.size = drawn + 1;
    for (int64_t r = 0; r < b.size; ++r) b.ids.push_back(100 * drawn + r);
    ++drawn;
    return b;
  }
};

// Each rank's batches, round after round, until the end of the epoch; also checks that the
// job-wide counters every rank computes agree.
std::vector<std::vector<int64_t>> deal(int batches, int ranks, int64_t* total_batches,
                                       int64_t* total_sentences) {
  std::vector<std::vector<int64_t>> own(ranks);
  std::vector<Stream> streams(ranks,
                              Stream{batches});  // every rank runs its own copy of the loader
  bool ended = false;
  *total_batches = *total_sentences = 0;
  while (!ended) {
    for (int r = 0; r < ranks; ++r) {
      const Round round = draw_round([&] { return streams[r].next(); }, r, ranks);
      if (r == 0) {
        *total_batches += round.batches;
        *total_sentences += round.sentences;
        ended = round.end_of_epoch;
      } else {
        EXPECT_EQ(round.end_of_epoch, ended)
            << "rank " << r << " sees the end of the epoch elsewhere";
      }
      if (round.own) own[r].push_back(round.own->ids[0] / 100);
    }
  }
  return own;
}

TEST(Shard, RoundsDealTheStreamOutBatchByBatch) {
  int64_t batches = 0, sentences = 0;
  // 7 batches over 3 ranks: rounds {0,1,2} {3,4,5} {6, end}.
  const auto own = deal(7, 3, &batches, &sentences);
  EXPECT_EQ(own[0], (std::vector<int64_t>{0, 3, 6}));
  EXPECT_EQ(own[1], (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(own[2], (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(batches, 7);
  EXPECT_EQ(sentences, 1 + 2 + 3 + 4 + 5 + 6 + 7);
  // One process takes every batch; the next call starts the next epoch.
  Stream s{2};
  EXPECT_EQ(draw_round([&] { return s.next(); }, 0, 1).own->size, 1);
  EXPECT_EQ(draw_round([&] { return s.next(); }, 0, 1).own->size, 2);
  const Round end = draw_round([&] { return s.next(); }, 0, 1);
  EXPECT_TRUE(end.end_of_epoch);
  EXPECT_FALSE(end.own.has_value());
  EXPECT_EQ(end.batches, 0);
  EXPECT_EQ(draw_round([&] { return s.next(); }, 0, 1).own->size, 1);
  // The round ends exactly at the epoch's end: all ranks get a batch, and the next round is empty.
  const auto even = deal(4, 2, &batches, &sentences);
  EXPECT_EQ(even[0], (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(even[1], (std::vector<int64_t>{1, 3}));
  EXPECT_THROW(draw_round([&] { return s.next(); }, 3, 3), Error);
}

}  // namespace
}  // namespace realmt::training
