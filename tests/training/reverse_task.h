// A synthetic task for training tests: reverse a sequence of symbols (ids 4 .. 4+kSymbols-1).
#pragma once

#include <vector>

#include "core/rng.h"
#include "core/tensor.h"
#include "data/vocab.h"

namespace realmt::training::test {

constexpr int kSymbols = 12;
constexpr int64_t kVocab = 4 + kSymbols;

struct ReverseBatch {
  Tensor src, tgt_in, tgt_out;  // [B, S], [B, T], [B, T]
  std::vector<std::vector<int32_t>> sequences;
};

// B sequences of random length in [min_len, max_len], padded; targets reversed, eos-terminated.
inline ReverseBatch make_reverse_batch(Generator& gen, int64_t batch, int min_len, int max_len) {
  ReverseBatch b;
  const int64_t len = max_len + 1;
  std::vector<int32_t> src(batch * len, data::kPadId), in(batch * len, data::kPadId),
      out(batch * len, data::kPadId);
  for (int64_t r = 0; r < batch; ++r) {
    const int n = min_len + static_cast<int>(gen.next_u32() % (max_len - min_len + 1));
    std::vector<int32_t> seq(n);
    for (auto& s : seq) s = 4 + static_cast<int32_t>(gen.next_u32() % kSymbols);
    for (int i = 0; i < n; ++i) src[r * len + i] = seq[i];
    src[r * len + n] = data::kEosId;
    in[r * len] = data::kBosId;
    for (int i = 0; i < n; ++i) {
      out[r * len + i] = seq[n - 1 - i];
      in[r * len + i + 1] = seq[n - 1 - i];
    }
    out[r * len + n] = data::kEosId;
    b.sequences.push_back(seq);
  }
  b.src = Tensor::from_vector(src, {batch, len});
  b.tgt_in = Tensor::from_vector(in, {batch, len});
  b.tgt_out = Tensor::from_vector(out, {batch, len});
  return b;
}

}  // namespace realmt::training::test
