// The training data loader: reads a parallel corpus through a line index (memory bounded for
// 36M pairs), encodes with SentencePiece on the fly (threaded), and yields mini-batches bounded
// by a token budget, length-sorted inside each maxi-batch, in an order that depends only on the
// seed, with a background prefetch thread. Its position is a string that restores exactly.
//
// Order (all of it a function of seed, options and corpus; threads and prefetch never change it):
// - Epoch e visits the usable pairs (both sides non-empty) in a seeded permutation (or in file
//   order with shuffle off).
// - The permutation is cut into pools (maxi-batches): a pool closes after maxi_batch * mini_batch
//   lines (when mini_batch > 0) or once its pairs hold maxi_batch * mini_batch_words tokens (when
//   mini_batch_words > 0), whichever comes first.
// - Each pool is encoded; pairs with a side over max_length subwords (eos not counted) are
//   skipped and counted, or cropped to max_length with max_length_crop; eos ends every sequence.
// - The pool is sorted by length and cut into batches (batch_pool.h: BatchLimits); with shuffle
//   on, the batches of a pool come in a seeded random order.
// So within an epoch every usable pair that passes max_length appears in exactly one batch.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "data/batch.h"
#include "data/batch_pool.h"
#include "data/corpus_index.h"
#include "data/vocab.h"

namespace realmt::data {

struct BatchGeneratorOptions {
  std::string src_path;    // source side, or a TSV file (source<TAB>target) when tgt_path is empty
  std::string tgt_path;    // target side (plain or gzip)
  std::string vocab_path;  // the vocabulary (.spm or word list) of both sides, or the source's
  std::string tgt_vocab_path;  // the target side's (Vocab::pair); empty: vocab_path
  // A vocabulary made elsewhere (a converted model's tables: Vocab::from_tables) instead of the
  // paths; batches then end sentences with its eos and pad with its pad.
  std::shared_ptr<Vocab> vocab;
  int64_t mini_batch_words = 0;  // Marian's mini-batch-words: token budget a batch, see BatchLimits
  int64_t mini_batch = 64;       // Marian's mini-batch: pairs a batch at most (0: no limit)
  int64_t maxi_batch = 100;      // Marian's maxi-batch: pool size in mini-batches
  int64_t max_length = 50;       // Marian's max-length: subwords a side, eos not counted (0: none)
  bool max_length_crop = false;  // Marian's max-length-crop: crop long pairs instead of skipping
  bool shuffle = true;           // shuffle pairs each epoch and batches within a pool
  bool shuffle_batches = false;  // with shuffle off: pairs in file order, batches of a pool still
                                 // shuffled (Marian's shuffle batches)
  uint64_t seed = 1;             // Marian's seed
  int threads = 1;               // encoding threads
  int prefetch = 8;              // batches prepared ahead by a background thread (0: no thread)
  std::string temp_dir;          // where gzip corpora are decompressed (default $TMPDIR or /tmp)
};

// Counts since construction (or the last restore) of what the loader read, skipped and cropped.
struct BatchGeneratorStats {
  int64_t corpus_lines = 0;  // lines in the corpus
  int64_t empty_pairs = 0;   // pairs never used: a side is empty
  int64_t too_long = 0;      // pairs skipped (max_length, no crop), summed over pools encoded
  int64_t cropped = 0;       // pairs cropped (max_length_crop), summed over pools encoded
  int64_t batches = 0;       // batches returned
  int64_t pairs = 0;         // pairs returned
};

class BatchGenerator {
 public:
  explicit BatchGenerator(BatchGeneratorOptions options);
  ~BatchGenerator();
  BatchGenerator(const BatchGenerator&) = delete;
  BatchGenerator& operator=(const BatchGenerator&) = delete;

  // The next batch, or nullopt once at the end of each epoch; the call after that starts the
  // next epoch. Errors from the background thread (e.g. an unreadable line) are rethrown here.
  std::optional<Batch> next();

  // The epoch the next batch belongs to (0-based).
  int64_t epoch() const { return position_.epoch; }
  // The position just after the last batch next() returned, as one line of key=value text.
  // restore(state()) on a generator with the same corpus and ordering options continues with the
  // very batch that would have come next.
  std::string state() const;
  // Fails with a clear message when the state is malformed or was made with a different corpus
  // size, seed or batching options.
  void restore(const std::string& state);

  BatchGeneratorStats stats() const;
  const Vocab& vocab() const { return *vocab_; }  // both sides (a pair with two vocabularies)
  const BatchGeneratorOptions& options() const { return options_; }

 private:
  struct Position {
    int64_t epoch = 0;
    int64_t pool_start = 0;  // index into the epoch's order where the current pool starts
    int64_t skip = 0;        // batches of that pool already returned
  };
  // Pairs left out (too long) or cropped while a pool was made.
  struct LengthCounts {
    int64_t too_long = 0, cropped = 0;
  };
  struct Item {
    std::optional<Batch> batch;  // nullopt: end of epoch
    Position after;
    // The counts of the pools made for this item, added to stats() when it is taken: the
    // producer runs ahead into the next epoch, whose counts must not show in this one's.
    LengthCounts counts;
  };

  std::string fingerprint() const;
  void prepare_order(int64_t epoch);
  std::vector<Item> make_pool_items(Position& at);  // all items of the pool at `at`; advances it
  std::vector<Sample> encode_pool(int64_t epoch, int64_t start, int64_t& end, LengthCounts& counts);
  void encode_lines(const uint32_t* lines, size_t n, std::vector<Sample>& out);
  void producer_loop();
  void start();
  void stop();

  BatchGeneratorOptions options_;
  std::unique_ptr<CorpusIndex> corpus_;
  std::shared_ptr<Vocab> vocab_;

  // Producer side (only the producer touches these while it runs).
  std::vector<uint32_t> order_;
  int64_t order_epoch_ = -1;
  Position produce_at_;
  std::deque<Sample> carry_;  // encoded lines from carry_start_ on, not yet in a pool
  int64_t carry_epoch_ = -1, carry_start_ = -1;

  // Consumer side.
  Position position_;
  int64_t batches_ = 0, pairs_ = 0;
  int64_t too_long_ = 0, cropped_ = 0;

  // The queue between them.
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  std::exception_ptr error_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace realmt::data
