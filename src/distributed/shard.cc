#include "distributed/shard.h"

#include <algorithm>

#include "core/error.h"

namespace realmt::distributed {

data::Batch shard_rows(const data::Batch& batch, int rank, int size) {
  REALMT_CHECK(size >= 1 && rank >= 0 && rank < size, "shard_rows: rank {} of {}", rank, size);
  const int64_t begin = batch.size * rank / size, end = batch.size * (rank + 1) / size;
  data::Batch s;
  s.size = end - begin;
  s.src_len = batch.src_len;
  s.tgt_len = batch.tgt_len;
  s.epoch = batch.epoch;
  s.src.assign(batch.src.begin() + begin * batch.src_len, batch.src.begin() + end * batch.src_len);
  s.tgt.assign(batch.tgt.begin() + begin * batch.tgt_len, batch.tgt.begin() + end * batch.tgt_len);
  if (!batch.ids.empty()) s.ids.assign(batch.ids.begin() + begin, batch.ids.begin() + end);
  auto tokens = [](const std::vector<int32_t>& v) {
    return static_cast<int64_t>(std::count_if(v.begin(), v.end(), [](int32_t id) { return id != data::kPadId; }));
  };
  s.src_tokens = tokens(s.src);
  s.tgt_tokens = tokens(s.tgt);
  return s;
}

}  // namespace realmt::distributed
