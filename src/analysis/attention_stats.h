// Attention sparsity and cross-layer similarity as the RealFormer paper measures them
// (the RealFormer paper's attention analysis), per (chain, layer, head, query token):
//   entropy  H(p) = -sum_j p_j log2 p_j                       (bits; lower = sparser)
//   JSD      JSD(p, q) = (KL(p || m) + KL(q || m)) / 2, m = (p + q) / 2, base 2, in [0, 1]
// where p is one query's post-softmax distribution before dropout over its visible keys, and
// q the same query's distribution in the same head one layer up (vertically adjacent heads).
// Visible keys: encoder self-attention and cross-attention, the sentence's source tokens
// (eos included, padding excluded); decoder self-attention, target positions up to the query's
// (causal). Queries are the sentence's real positions (padding rows are not counted); a query
// that sees a single key is skipped (its distribution is fixed: entropy 0, JSD 0).
// Summaries: quartiles by linear interpolation (NumPy's default percentile), mean and count.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "models/transformer.h"

namespace realmt::analysis {

// Over n probabilities (terms with p = 0 contribute 0).
double entropy_bits(const float* p, int64_t n);
double jsd_bits(const float* p, const float* q, int64_t n);

struct Summary {
  int64_t count = 0;
  double q1 = 0, median = 0, q3 = 0, mean = 0, min = 0, max = 0;
};
// Quartiles with NumPy's linear interpolation; values is reordered. Empty: all zero.
Summary summarize(std::vector<float>& values);

const char* chain_name(models::AttentionChain chain);  // "encoder", "decoder", "cross"
constexpr int kChains = 3;

// Collects entropies and JSDs while a model runs (set as ForwardContext::attention). Call
// begin_batch before each encode/decode pair with the batch rows' lengths.
class AttentionStats final : public models::AttentionObserver {
 public:
  // Per chain: layers (encoder depth or decoder depth) and heads.
  AttentionStats(int enc_layers, int dec_layers, int heads);
  // src_len[b]: source tokens of row b (eos included); tgt_len[b]: decoder positions (<s> and
  // the target tokens). keep: the rows whose matrices go to heatmap() (empty: none).
  void begin_batch(std::vector<int64_t> src_len, std::vector<int64_t> tgt_len,
                   std::vector<bool> keep = {});
  void observe(models::AttentionChain chain, int layer, const Tensor& probs) override;

  int layers(int chain) const { return static_cast<int>(entropy_[chain].size()); }
  int heads() const { return heads_; }
  // Values per query token, in the order seen: [chain][layer][head]; JSD's layer index is the
  // lower layer of the pair (layer, layer + 1).
  std::vector<float>& entropy(int chain, int layer, int head) {
    return entropy_[chain][layer][head];
  }
  std::vector<float>& jsd(int chain, int layer, int head) { return jsd_[chain][layer][head]; }

  // The kept rows' matrices, [chain][layer][head] -> rows of visible probabilities (query i of
  // the decoder self-attention has i + 1 entries). One kept row at most.
  using Matrix = std::vector<std::vector<float>>;
  const std::vector<std::vector<std::vector<Matrix>>>& heatmap() const { return heatmap_; }

 private:
  int64_t visible_keys(int chain, int64_t row, int64_t query) const;
  int64_t queries(int chain, int64_t row) const;
  int heads_;
  std::vector<int64_t> src_len_, tgt_len_;
  std::vector<bool> keep_;
  std::array<std::vector<std::vector<std::vector<float>>>, kChains> entropy_, jsd_;
  std::array<std::vector<float>, kChains>
      previous_;  // the chain's last layer, host f32 [B, H, Tq, Tk]
  std::array<int, kChains> previous_layer_{-1, -1, -1};
  std::array<std::vector<int64_t>, kChains> previous_shape_;
  std::vector<std::vector<std::vector<Matrix>>> heatmap_;
};

}  // namespace realmt::analysis
