// Corpus cleaning (realmt-data clean): streams a parallel corpus and writes the pairs that pass,
// counting every dropped pair by reason (and optionally writing it, with its reason, to a file).
#pragma once

#include <cstdint>
#include <string>

#include "data/normalize.h"
#include "data/parallel_reader.h"

namespace realmt::data {

struct CleanOptions {
  ParallelReaderOptions input;   // two files or a TSV file
  std::string src_out, tgt_out;  // the kept pairs
  std::string dropped_out;       // optional: reason<TAB>line<TAB>src<TAB>tgt of each dropped pair
  int64_t max_words = 250;       // drop pairs with a side over this many words (0: no limit)
  double max_ratio = 3.0;        // drop pairs whose longer side has over max_ratio times the
                                 // characters of the shorter (0: no check)
  int64_t ratio_min_chars = 10;  // ...checked only when the longer side has this many characters
  bool dedup = true;             // drop exact duplicate pairs (after normalization)
  Normalization normalization = Normalization::kNone;  // applied to both sides before all checks
};

struct CleanReport {
  int64_t read = 0, kept = 0;
  int64_t empty = 0, too_long = 0, bad_ratio = 0, duplicate = 0;
  int64_t normalized = 0;  // pairs read that normalization changed
  std::string summary() const;
};

CleanReport clean_corpus(const CleanOptions& options);

}  // namespace realmt::data
