// realmt-data testsets: fills realmt-bleu's (and sacreBLEU's) test-set cache from local files.
#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "data/cli.h"
#include "data/commands.h"
#include "metrics/test_set_cache.h"
#include "metrics/test_sets.h"

namespace realmt::data {

int run_testsets(const Args& args) {
  std::string cache;
  std::vector<std::string> from, sets;
  OptionSet set("realmt-data testsets",
                "Fill the sacreBLEU-style test-set cache that realmt-bleu -t reads");
  set.details(
      "e.g. realmt-data testsets --from ../shared/data/wmt14-enfr [--cache DIR] [--sets wmt14 "
      "wmt13]\n"
      "Finds the WMT'08-'14 English-French test sets under --from, as the official SGM files\n"
      "(newstest2014-fren-src.en.sgm, ...) or plain text (newstest2014.en, newstest2014.fr, ...),\n"
      "and writes them as sacreBLEU does to CACHE/<set>/<set>.<pair>.{src,ref} (from SGM also\n"
      "docid, genre, origlang). Then `realmt-bleu -t wmt14 -l en-fr` reads them.\n"
      "tools/prepare-wmt14-enfr downloads the SGM files and runs this command.");
  set.add("Options", "from", &from,
          "Folders searched (recursively) for the test sets' files; SGM files win")
      .add("Options", "cache", &cache, "The cache folder (empty: $SACREBLEU, else ~/.sacrebleu)")
      .add("Options", "sets", &sets,
           "Only these test sets (empty: all that realmt-bleu --list shows)")
      .required("from");
  if (!cli::parse(set, args)) return 0;
  if (cache.empty()) cache = metrics::sacrebleu_cache_dir();
  const metrics::TestSetCacheReport r = metrics::fill_test_set_cache(from, cache, sets);
  for (const auto& f : r.filled) {
    log::info("testsets: {} {}: {} segments from {} and {} {}", f.set, f.pair, f.segments, f.src,
              f.ref, f.sgm ? "(SGM)" : "(plain text: no docid, genre, origlang)");
  }
  std::string missing;
  for (const auto& m : r.missing) missing += (missing.empty() ? "" : ", ") + m;
  std::string dirs;
  for (const auto& d : from) dirs += (dirs.empty() ? "" : ", ") + d;
  if (!missing.empty()) log::info("testsets: not found under {}: {}", dirs, missing);
  REALMT_CHECK(!r.filled.empty(),
               "testsets: no test set found under {} (newstestYYYY.en/.fr or the WMT SGM files)",
               dirs);
  log::info("testsets: {} test set pairs written to {}", r.filled.size(), cache);
  return 0;
}

}  // namespace realmt::data
