// Train/dev/test split by source sentence (realmt-data split): no source sentence appears in two
// splits. Sources are compared exactly, case-folded, or masked (data/match_form.h: numbers,
// placeholders, case and punctuation ignored, so near-duplicates count as the same sentence).
//
// Without groups, dev and test draw distinct sources at random (two passes over the corpus and
// 8 bytes a pair, so it scales to large corpora). With groups (a label a line, e.g. the gettext
// catalog each pair came from), dev and test take whole groups, drawn at random among those no
// larger than max_group, so that no group straddles two splits; a held-out pair whose source
// also occurs in another group is dropped (train keeps its copies), and the last group drawn
// for dev or test is cut at the requested size (the rest is dropped, never moved to train).
// dev and test are then shuffled (a group's pairs would otherwise sit together).
#pragma once

#include <cstdint>
#include <string>

#include "data/match_form.h"
#include "data/parallel_reader.h"

namespace realmt::data {

struct SplitOptions {
  ParallelReaderOptions input;  // two files or a TSV file; empty pairs are skipped and counted
  std::string out_dir;          // writes train.L1 train.L2 dev.* test.* there
  std::string src_lang = "en", tgt_lang = "fr";  // file suffixes
  int64_t dev = 1000, test = 2000;               // distinct source sentences in dev and test
  uint64_t seed = 1;                             // which sources (or groups) go to dev and test
  SourceMatch match = SourceMatch::kExact;       // how sources are compared
  std::string groups_path;  // one group label a line, line-aligned with the corpus (empty: none)
  int64_t max_group = 0;  // groups with more candidate pairs stay in train (0: see auto_max_group)
};

// The default cap on a held-out group: a quarter of the smaller non-empty held-out set (at least
// 1), so that dev and test each hold at least four groups.
int64_t auto_max_group(int64_t dev, int64_t test);

struct SplitReport {
  int64_t read = 0, empty = 0, unique_sources = 0;
  int64_t train = 0, dev = 0, test = 0;
  int64_t dropped_alternatives = 0;  // further translations of a dev/test source (dev and test
                                     // keep one translation per source; the rest cannot go to
                                     // train without crossing splits)
  int64_t near_duplicates = 0;       // of those, sources that differ from the kept one (in case,
                                     // numbers, placeholders or punctuation, as compared)
  // With groups:
  int64_t groups = 0, dev_groups = 0, test_groups = 0, large_groups = 0;
  int64_t dropped_shared = 0;   // dev/test pairs whose source also occurs in another group
  int64_t dropped_surplus = 0;  // the rest of the last group drawn for dev or test
  std::string summary() const;
};

SplitReport split_corpus(const SplitOptions& options);

}  // namespace realmt::data
