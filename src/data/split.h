// Train/dev/test split by source sentence (realmt-data split): no source sentence appears in two
// splits. Two passes over the corpus and 8 bytes a pair, so it scales to large corpora.
#pragma once

#include <cstdint>
#include <string>

#include "data/parallel_reader.h"

namespace realmt::data {

struct SplitOptions {
  ParallelReaderOptions input;  // two files or a TSV file; empty pairs are skipped and counted
  std::string out_dir;          // writes train.L1 train.L2 dev.* test.* there
  std::string src_lang = "en", tgt_lang = "fr";  // file suffixes
  int64_t dev = 1000, test = 2000;  // distinct source sentences in dev and test
  uint64_t seed = 1;                // which sources go to dev and test
  bool casefold = false;            // compare sources case-folded (Unicode) rather than exactly
};

struct SplitReport {
  int64_t read = 0, empty = 0, unique_sources = 0;
  int64_t train = 0, dev = 0, test = 0;
  int64_t dropped_alternatives = 0;  // further translations of a dev/test source (dev and test
                                     // keep one translation per source; the rest cannot go to
                                     // train without crossing splits)
  std::string summary() const;
};

SplitReport split_corpus(const SplitOptions& options);

}  // namespace realmt::data
