#include "data/split.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/hash_set.h"
#include "data/normalize.h"
#include "data/rng.h"

namespace realmt::data {

std::string SplitReport::summary() const {
  return format("read {} pairs ({} skipped with an empty side), {} distinct sources; train {}, dev "
                "{}, test {}; dropped {} further translations of dev/test sources",
                read, empty, unique_sources, train, dev, test, dropped_alternatives);
}

SplitReport split_corpus(const SplitOptions& o) {
  REALMT_CHECK(o.dev >= 0 && o.test >= 0, "split: dev and test sizes must not be negative");
  auto key = [&](const std::string& src) { return hash_text(o.casefold ? casefold(src) : src); };
  SplitReport r;
  // Pass 1: the distinct sources.
  std::vector<uint64_t> keys;
  {
    ParallelReader reader(o.input);
    SentencePair p;
    while (reader.next(p)) keys.push_back(key(p.src));
    r.read = reader.stats().lines;
    r.empty = reader.stats().empty;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  r.unique_sources = int64_t(keys.size());
  REALMT_CHECK(o.dev + o.test < r.unique_sources,
               "split: {} has {} distinct source sentences, too few for dev {} + test {} + a train "
               "set", (o.input.tgt_path.empty() ? o.input.src_path : o.input.src_path + " + " + o.input.tgt_path), r.unique_sources, o.dev, o.test);
  Rng rng(derive_seed(o.seed, 0x5eed));
  // A partial Fisher-Yates: only the first dev+test positions are drawn.
  for (int64_t i = 0; i < o.dev + o.test; ++i) {
    std::swap(keys[size_t(i)], keys[size_t(i) + rng.below(keys.size() - size_t(i))]);
  }
  HashSet dev_keys, test_keys, taken;
  for (int64_t i = 0; i < o.dev; ++i) dev_keys.insert(keys[size_t(i)]);
  for (int64_t i = o.dev; i < o.dev + o.test; ++i) test_keys.insert(keys[size_t(i)]);
  keys = {};

  // Pass 2: route each pair.
  std::filesystem::create_directories(o.out_dir);
  auto open = [&](const std::string& name) {
    std::ofstream f(o.out_dir + "/" + name, std::ios::binary);
    REALMT_CHECK(f.good(), "split: cannot write {}/{}", o.out_dir, name);
    return f;
  };
  std::ofstream out[3][2] = {{open("train." + o.src_lang), open("train." + o.tgt_lang)},
                             {open("dev." + o.src_lang), open("dev." + o.tgt_lang)},
                             {open("test." + o.src_lang), open("test." + o.tgt_lang)}};
  ParallelReader reader(o.input);
  SentencePair p;
  while (reader.next(p)) {
    const uint64_t k = key(p.src);
    int which = dev_keys.contains(k) ? 1 : test_keys.contains(k) ? 2 : 0;
    if (which != 0 && !taken.insert(k)) {
      ++r.dropped_alternatives;
      continue;
    }
    out[which][0] << p.src << '\n';
    out[which][1] << p.tgt << '\n';
    ++(which == 0 ? r.train : which == 1 ? r.dev : r.test);
  }
  for (auto& pair : out) {
    for (auto& f : pair) {
      f.flush();
      REALMT_CHECK(f.good(), "split: writing into {} failed (disk full?)", o.out_dir);
    }
  }
  return r;
}

}  // namespace realmt::data
