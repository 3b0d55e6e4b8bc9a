// Filling the local test-set cache (test_sets.h) from files on disk: the official WMT SGM files
// (as in the archives sacreBLEU and tools/prepare-wmt14-enfr download) or their plain-text
// releases (newstest2014.en / .fr, one segment a line). Used by `realmt-data testsets`.
#pragma once

#include <string>
#include <vector>

namespace realmt::metrics {

struct FilledTestSet {
  std::string set, pair;  // "wmt14", "en-fr"
  std::string src, ref;   // the files it was made from
  bool sgm = false;       // from SGM: the docid, genre and origlang fields were written too
  size_t segments = 0;
};

struct TestSetCacheReport {
  std::vector<FilledTestSet> filled;
  std::vector<std::string> missing;  // "wmt10 en-fr" for each pair whose files were not found
};

// Searches the from_dirs (recursively; the first of a name in the folders' order wins) for the
// files of each known test set (all when `sets` is empty) and writes
// CACHE/<set>/<file>.<pair>.<field> as sacreBLEU writes them: each segment's text with whitespace
// stripped and collapsed (sacreBLEU's _clean); from SGM the docid, genre and origlang of each
// segment's document. SGM files win over plain text. A source and reference of different segment
// counts, invalid UTF-8 or an unknown set name is an error naming the files; files are written
// atomically.
TestSetCacheReport fill_test_set_cache(const std::vector<std::string>& from_dirs,
                                       const std::string& cache_dir,
                                       const std::vector<std::string>& sets);

}  // namespace realmt::metrics
