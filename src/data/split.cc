#include "data/split.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "core/error.h"
#include "data/hash_set.h"
#include "data/line_reader.h"
#include "data/rng.h"

namespace realmt::data {

namespace {

uint64_t source_key(const std::string& src, SourceMatch match) {
  return hash_text(match_form(src, match));
}

std::string corpus_name(const SplitOptions& o) {
  return o.input.tgt_path.empty() ? o.input.src_path : o.input.src_path + " + " + o.input.tgt_path;
}

// train.*, dev.*, test.* in out_dir; which: 0 train, 1 dev, 2 test.
class SplitWriter {
 public:
  explicit SplitWriter(const SplitOptions& o) : dir_(o.out_dir) {
    std::filesystem::create_directories(dir_);
    const char* names[3] = {"train.", "dev.", "test."};
    for (int w = 0; w < 3; ++w) {
      open(out_[w][0], names[w] + o.src_lang);
      open(out_[w][1], names[w] + o.tgt_lang);
    }
  }
  void write(int which, const SentencePair& p) {
    out_[which][0] << p.src << '\n';
    out_[which][1] << p.tgt << '\n';
  }
  void finish() {
    for (auto& pair : out_) {
      for (auto& f : pair) {
        f.flush();
        REALMT_CHECK(f.good(), "split: writing into {} failed (disk full?)", dir_);
      }
    }
  }

 private:
  void open(std::ofstream& f, const std::string& name) {
    f.open(dir_ + "/" + name, std::ios::binary);
    REALMT_CHECK(f.good(), "split: cannot write {}/{}", dir_, name);
  }
  std::string dir_;
  std::ofstream out_[3][2];
};

// The group label of each corpus line, as small integers in order of first appearance.
class GroupLabels {
 public:
  explicit GroupLabels(const std::string& path) : reader_(path) {}
  // Lines are asked for in increasing order (the corpus reader skips some).
  int32_t at(int64_t line) {
    while (reader_.line_number() < line) {
      REALMT_CHECK(reader_.next(label_), "split: {} has {} lines, fewer than the corpus",
                   reader_.path(), reader_.line_number());
    }
    REALMT_CHECK(!label_.empty(), "split: {}:{}: empty group label", reader_.path(), line);
    return ids_.try_emplace(label_, int32_t(ids_.size())).first->second;
  }
  // The file must end where the corpus does.
  void check_end(int64_t corpus_lines) {
    while (reader_.line_number() < corpus_lines) at(reader_.line_number() + 1);
    REALMT_CHECK(!reader_.next(label_), "split: {} has more lines than the corpus ({})",
                 reader_.path(), corpus_lines);
  }
  size_t count() const { return ids_.size(); }

 private:
  LineReader reader_;
  std::unordered_map<std::string, int32_t> ids_;
  std::string label_;
};

// dev and test keep one translation per source: the first; later ones are counted.
class HeldOutSources {
 public:
  // True when `key` was not taken before; otherwise counts the pair as an alternative.
  bool take(uint64_t key, const std::string& src, SplitReport& r) {
    const uint64_t exact = hash_text(src);
    const auto [it, fresh] = first_.try_emplace(key, exact);
    if (fresh) return true;
    ++r.dropped_alternatives;
    r.near_duplicates += it->second != exact;
    return false;
  }
  bool contains(uint64_t key) const { return first_.count(key) != 0; }

 private:
  std::unordered_map<uint64_t, uint64_t> first_;  // match key -> hash of the exact source kept
};

// Without groups: dev and test are distinct sources drawn at random.
SplitReport split_by_source(const SplitOptions& o) {
  SplitReport r;
  // Pass 1: the distinct sources.
  std::vector<uint64_t> keys;
  {
    ParallelReader reader(o.input);
    SentencePair p;
    while (reader.next(p)) keys.push_back(source_key(p.src, o.match));
    r.read = reader.stats().lines;
    r.empty = reader.stats().empty;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  r.unique_sources = int64_t(keys.size());
  REALMT_CHECK(
      o.dev + o.test < r.unique_sources,
      "split: {} has {} distinct source sentences, too few for dev {} + test {} + a train set",
      corpus_name(o), r.unique_sources, o.dev, o.test);
  Rng rng(derive_seed(o.seed, 0x5eed));
  // A partial Fisher-Yates: only the first dev+test positions are drawn.
  for (int64_t i = 0; i < o.dev + o.test; ++i) {
    std::swap(keys[size_t(i)], keys[size_t(i) + rng.below(keys.size() - size_t(i))]);
  }
  HashSet dev_keys, test_keys;
  for (int64_t i = 0; i < o.dev; ++i) dev_keys.insert(keys[size_t(i)]);
  for (int64_t i = o.dev; i < o.dev + o.test; ++i) test_keys.insert(keys[size_t(i)]);
  keys = {};

  // Pass 2: route each pair.
  SplitWriter out(o);
  HeldOutSources taken;
  ParallelReader reader(o.input);
  SentencePair p;
  while (reader.next(p)) {
    const uint64_t k = source_key(p.src, o.match);
    const int which = dev_keys.contains(k) ? 1 : test_keys.contains(k) ? 2 : 0;
    if (which != 0 && !taken.take(k, p.src, r)) continue;
    out.write(which, p);
    ++(which == 0 ? r.train : which == 1 ? r.dev : r.test);
  }
  out.finish();
  return r;
}

// What pass 1 learns about the groups.
struct GroupPlan {
  HashSet shared;                   // keys found in more than one group
  std::vector<int64_t> candidates;  // per group: its distinct keys found in no other group
  std::vector<int8_t> split_of;     // per group: 0 train, 1 dev, 2 test
};

GroupPlan plan_groups(std::vector<std::pair<uint64_t, int32_t>> key_group, size_t groups,
                      SplitReport& r) {
  std::sort(key_group.begin(), key_group.end());
  key_group.erase(std::unique(key_group.begin(), key_group.end()), key_group.end());
  GroupPlan plan;
  plan.candidates.assign(groups, 0);
  plan.split_of.assign(groups, 0);
  for (size_t i = 0; i < key_group.size();) {
    size_t j = i + 1;
    while (j < key_group.size() && key_group[j].first == key_group[i].first) ++j;
    ++r.unique_sources;
    if (j - i == 1) {
      ++plan.candidates[size_t(key_group[i].second)];
    } else {
      plan.shared.insert(key_group[i].first);
    }
    i = j;
  }
  return plan;
}

// Draws whole groups for dev, then test, until each has at least the requested candidates.
void draw_groups(const SplitOptions& o, GroupPlan& plan, SplitReport& r) {
  const int64_t cap = o.max_group > 0 ? o.max_group : auto_max_group(o.dev, o.test);
  std::vector<int32_t> order;
  for (size_t g = 0; g < plan.candidates.size(); ++g) {
    if (plan.candidates[g] > cap) ++r.large_groups;
    if (plan.candidates[g] > 0 && plan.candidates[g] <= cap) order.push_back(int32_t(g));
  }
  Rng rng(derive_seed(o.seed, 0x9e0b));
  for (size_t i = 0; i + 1 < order.size(); ++i)
    std::swap(order[i], order[i + rng.below(order.size() - i)]);
  int64_t sum[3] = {0, o.dev > 0 ? 0 : -1, o.test > 0 ? 0 : -1};
  const int64_t want[3] = {0, o.dev, o.test};
  for (int32_t g : order) {
    const int which = sum[1] >= 0 && sum[1] < o.dev ? 1 : sum[2] >= 0 && sum[2] < o.test ? 2 : 0;
    if (which == 0) break;
    plan.split_of[size_t(g)] = int8_t(which);
    sum[which] += plan.candidates[size_t(g)];
    ++(which == 1 ? r.dev_groups : r.test_groups);
  }
  for (int w = 1; w <= 2; ++w) {
    REALMT_CHECK(
        std::max<int64_t>(sum[w], 0) >= want[w],
        "split: the {} groups of {} offer too few pairs for dev {} + test {} (groups with at most "
        "{} "
        "sources of their own are drawn; {} are larger); lower --dev/--test or raise --max-group",
        plan.candidates.size(), o.groups_path, o.dev, o.test, cap, r.large_groups);
  }
}

void shuffle_and_write(std::vector<SentencePair>& pairs, Rng& rng, int which, SplitWriter& out) {
  for (size_t i = 0; i + 1 < pairs.size(); ++i)
    std::swap(pairs[i], pairs[i + rng.below(pairs.size() - i)]);
  for (const auto& p : pairs) out.write(which, p);
}

// With groups: dev and test are whole groups (see split.h).
SplitReport split_by_group(const SplitOptions& o) {
  SplitReport r;
  GroupPlan plan;
  {
    std::vector<std::pair<uint64_t, int32_t>> key_group;
    GroupLabels labels(o.groups_path);
    ParallelReader reader(o.input);
    SentencePair p;
    while (reader.next(p)) key_group.emplace_back(source_key(p.src, o.match), labels.at(p.line));
    r.read = reader.stats().lines;
    r.empty = reader.stats().empty;
    labels.check_end(r.read);
    r.groups = int64_t(labels.count());
    plan = plan_groups(std::move(key_group), labels.count(), r);
  }
  draw_groups(o, plan, r);

  SplitWriter out(o);
  HeldOutSources taken;
  std::vector<SentencePair> held[3];
  const int64_t want[3] = {0, o.dev, o.test};
  GroupLabels labels(o.groups_path);
  ParallelReader reader(o.input);
  SentencePair p;
  while (reader.next(p)) {
    const int which = plan.split_of[size_t(labels.at(p.line))];
    if (which == 0) {
      out.write(0, p);
      ++r.train;
      continue;
    }
    const uint64_t k = source_key(p.src, o.match);
    if (plan.shared.contains(k)) {
      ++r.dropped_shared;
    } else if (!taken.contains(k) && int64_t(held[which].size()) >= want[which]) {
      ++r.dropped_surplus;
    } else if (taken.take(k, p.src, r)) {
      held[which].push_back(p);
    }
  }
  Rng rng(derive_seed(o.seed, 0x5f1e));
  shuffle_and_write(held[1], rng, 1, out);
  shuffle_and_write(held[2], rng, 2, out);
  r.dev = int64_t(held[1].size());
  r.test = int64_t(held[2].size());
  out.finish();
  return r;
}

}  // namespace

int64_t auto_max_group(int64_t dev, int64_t test) {
  const int64_t smaller = dev > 0 && test > 0 ? std::min(dev, test) : std::max(dev, test);
  return std::max<int64_t>(1, smaller / 4);
}

std::string SplitReport::summary() const {
  std::string s = format(
      "read {} pairs ({} skipped with an empty side), {} distinct sources; train {}, dev {}, "
      "test {}; dropped {} further translations of dev/test sources",
      read, empty, unique_sources, train, dev, test, dropped_alternatives);
  if (near_duplicates > 0)
    s += format(" ({} of them near-duplicates of the source kept)", near_duplicates);
  if (groups > 0) {
    s += format(
        "; {} groups, {} in dev, {} in test, {} too large for dev/test; dropped {} dev/test pairs "
        "whose "
        "source occurs in another group and {} beyond the size asked for",
        groups, dev_groups, test_groups, large_groups, dropped_shared, dropped_surplus);
  }
  return s;
}

SplitReport split_corpus(const SplitOptions& o) {
  REALMT_CHECK(o.dev >= 0 && o.test >= 0, "split: dev and test sizes must not be negative");
  return o.groups_path.empty() ? split_by_source(o) : split_by_group(o);
}

}  // namespace realmt::data
