// One model's incremental decoder over the active rows (hypotheses) of a beam search.
// Rows are grouped by source sentence; the search tells reorder whether the rows still map to
// the same sentences (a beam move) so the source side is gathered only when the batch changes.
#pragma once

#include <cstdint>
#include <vector>

#include "models/transformer.h"

namespace realmt::search {

class DecoderSession {
 public:
  // src: i32 [B, S] source ids (each row ending in eos, padded with 0), on any device.
  // max_rows: hypotheses at most (batch x beam); initial_capacity: target positions the key/value
  // caches hold before they double. use_cache: true = Transformer::step_hidden with its key/value
  // cache; false = run the whole decoder over the prefix every step (reference and benchmark
  // baseline).
  DecoderSession(const models::Transformer& model, const Tensor& src, bool use_cache,
                 int64_t max_rows = 0, int64_t initial_capacity = 16);

  // Feeds the last token of every row (host i32 [N]); returns the decoder's output [N, D] on the
  // model's device (the output layer is the search's: Transformer::log_probs or output_topk).
  Tensor step(const std::vector<int32_t>& last_tokens);
  // Keeps rows `rows` (new row i = old row rows[i]). same_sources: every new row comes from a
  // row of the sentence that new row i had before (and the row count is unchanged).
  void reorder(const std::vector<int32_t>& rows, bool same_sources);
  // Cross-attention of the last step, last decoder layer, heads averaged: host f32 [N, S].
  // Needs use_cache.
  std::vector<float> cross_attention() const;
  int64_t source_length() const { return source_length_; }

 private:
  const models::Transformer& model_;
  bool use_cache_;
  int64_t source_length_ = 0;
  models::DecoderState state_;                // use_cache
  models::Encoded enc_;                       // !use_cache: encoder output rows per hypothesis
  std::vector<std::vector<int32_t>> prefix_;  // !use_cache: <s> y_1 .. y_t per row
};

}  // namespace realmt::search
