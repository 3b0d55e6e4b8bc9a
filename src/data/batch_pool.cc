#include "data/batch_pool.h"

#include <algorithm>

#include "core/error.h"

namespace realmt::data {

Batch make_batch(const std::vector<Sample>& pool, size_t begin, size_t end, int64_t epoch,
                 int32_t pad) {
  REALMT_ASSERT(begin < end && end <= pool.size());
  Batch b;
  b.size = int64_t(end - begin);
  b.epoch = epoch;
  for (size_t i = begin; i < end; ++i) {
    b.src_len = std::max(b.src_len, int64_t(pool[i].src.size()));
    b.tgt_len = std::max(b.tgt_len, int64_t(pool[i].tgt.size()));
  }
  b.src.assign(size_t(b.size * b.src_len), pad);
  b.tgt.assign(size_t(b.size * b.tgt_len), pad);
  b.ids.reserve(size_t(b.size));
  for (size_t i = begin; i < end; ++i) {
    const Sample& s = pool[i];
    const int64_t row = int64_t(i - begin);
    std::copy(s.src.begin(), s.src.end(), b.src.begin() + row * b.src_len);
    std::copy(s.tgt.begin(), s.tgt.end(), b.tgt.begin() + row * b.tgt_len);
    b.ids.push_back(s.line);
    b.src_tokens += int64_t(s.src.size());
    b.tgt_tokens += int64_t(s.tgt.size());
  }
  return b;
}

std::vector<Batch> cut_batches(std::vector<Sample>& pool, const BatchLimits& limits, int64_t epoch,
                               Rng* rng) {
  REALMT_CHECK(limits.mini_batch > 0 || limits.mini_batch_words > 0,
               "batching needs mini-batch > 0 or mini-batch-words > 0");
  // Sorting by length keeps padding small; the line index breaks ties so the order is total.
  std::sort(pool.begin(), pool.end(), [](const Sample& a, const Sample& b) {
    if (a.tgt.size() != b.tgt.size()) return a.tgt.size() < b.tgt.size();
    if (a.src.size() != b.src.size()) return a.src.size() < b.src.size();
    return a.line < b.line;
  });
  std::vector<Batch> batches;
  size_t begin = 0;
  int64_t longest = 0;
  for (size_t i = 0; i < pool.size(); ++i) {
    const int64_t count = int64_t(i - begin) + 1;
    const int64_t len = std::max(longest, pool[i].cost());
    const bool over_count = limits.mini_batch > 0 && count > limits.mini_batch;
    const bool over_words = limits.mini_batch_words > 0 && count * len > limits.mini_batch_words;
    if (i > begin && (over_count || over_words)) {
      batches.push_back(make_batch(pool, begin, i, epoch, limits.pad));
      begin = i;
      longest = pool[i].cost();
    } else {
      longest = len;
    }
  }
  if (begin < pool.size())
    batches.push_back(make_batch(pool, begin, pool.size(), epoch, limits.pad));
  if (rng) shuffle(batches, *rng);
  return batches;
}

}  // namespace realmt::data
