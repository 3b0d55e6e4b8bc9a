// Reads sentence pairs: two line-aligned files (source, target; plain or gzip) or one
// tab-separated file (source<TAB>target[<TAB>more columns ignored], as Tatoeba ships them).
//
// Contract:
// - Different line counts are an error naming both files and the first line one of them lacks.
// - Invalid UTF-8, unreadable files, and a TSV line without a tab are errors naming file:line.
// - Pairs with an empty side (after nothing but the line itself: no trimming) and pairs with a
//   side over max_words white-space words (when max_words > 0) are skipped and counted in
//   stats(); they are never dropped silently. Callers print stats() or pass it on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "data/line_reader.h"

namespace realmt::data {

struct SentencePair {
  std::string src, tgt;
  int64_t line = 0;  // 1-based line number in the corpus
};

struct ParallelReaderOptions {
  std::string src_path;           // source side, or the TSV file when tgt_path is empty
  std::string tgt_path;           // target side; empty: src_path is a TSV file
  bool swap_tsv_columns = false;  // TSV only: take column 2 as source and column 1 as target
  int64_t max_words = 0;          // > 0: skip (and count) pairs with a side longer than this
  bool skip_empty = true;         // skip (and count) pairs with an empty side
};

struct ReadStats {
  int64_t lines = 0;            // pairs read
  int64_t kept = 0;             // pairs returned
  int64_t empty = 0;            // skipped: a side was empty
  int64_t too_long = 0;         // skipped: a side had more than max_words words
  std::string summary() const;  // "read N pairs, kept K; skipped E empty, L over M words"
};

class ParallelReader {
 public:
  explicit ParallelReader(ParallelReaderOptions options);
  // The next pair that passes the filters; false at the end of the corpus.
  bool next(SentencePair& pair);
  const ReadStats& stats() const { return stats_; }
  const ParallelReaderOptions& options() const { return options_; }
  // "file" or "src + tgt", for messages.
  std::string name() const;

 private:
  bool read_raw(SentencePair& pair);

  ParallelReaderOptions options_;
  std::unique_ptr<LineReader> src_, tgt_;
  ReadStats stats_;
  std::string line_;
};

}  // namespace realmt::data
