#include "analysis/attention_stats.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "ops/cast.h"

namespace realmt::analysis {

double entropy_bits(const float* p, int64_t n) {
  double h = 0;
  for (int64_t j = 0; j < n; ++j)
    if (p[j] > 0) h -= static_cast<double>(p[j]) * std::log2(static_cast<double>(p[j]));
  return h;
}

double jsd_bits(const float* p, const float* q, int64_t n) {
  // Terms with a zero probability vanish (0 log 0 = 0); m > 0 wherever p or q is. Identical
  // rows give m == p exactly, so every log is log2(1) = 0.
  double kl_p = 0, kl_q = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double a = p[j], b = q[j], m = (a + b) / 2;
    if (a > 0) kl_p += a * std::log2(a / m);
    if (b > 0) kl_q += b * std::log2(b / m);
  }
  return std::clamp((kl_p + kl_q) / 2, 0.0, 1.0);
}

Summary summarize(std::vector<float>& v) {
  Summary s;
  s.count = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {  // NumPy's default: position q (n - 1), linear between neighbours
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (static_cast<double>(v[hi]) - v[lo]);
  };
  s.q1 = at(0.25);
  s.median = at(0.5);
  s.q3 = at(0.75);
  double sum = 0;
  for (float x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  s.min = v.front();
  s.max = v.back();
  return s;
}

const char* chain_name(models::AttentionChain chain) {
  switch (chain) {
    case models::AttentionChain::kEncoder: return "encoder";
    case models::AttentionChain::kDecoderSelf: return "decoder";
    case models::AttentionChain::kCross: return "cross";
  }
  return "?";
}

AttentionStats::AttentionStats(int enc_layers, int dec_layers, int heads) : heads_(heads) {
  REALMT_CHECK(enc_layers >= 1 && dec_layers >= 1 && heads >= 1,
               "attention statistics: {} / {} layers, {} heads", enc_layers, dec_layers, heads);
  const int depth[kChains] = {enc_layers, dec_layers, dec_layers};
  heatmap_.resize(kChains);
  for (int c = 0; c < kChains; ++c) {
    entropy_[c].assign(depth[c], std::vector<std::vector<float>>(heads));
    jsd_[c].assign(depth[c] - 1, std::vector<std::vector<float>>(heads));
    heatmap_[c].assign(depth[c], std::vector<Matrix>(heads));
  }
}

void AttentionStats::begin_batch(std::vector<int64_t> src_len, std::vector<int64_t> tgt_len,
                                 std::vector<bool> keep) {
  REALMT_CHECK(src_len.size() == tgt_len.size(),
               "attention statistics: {} source lengths, {} target lengths", src_len.size(),
               tgt_len.size());
  src_len_ = std::move(src_len);
  tgt_len_ = std::move(tgt_len);
  keep_ = keep.empty() ? std::vector<bool>(src_len_.size(), false) : std::move(keep);
  REALMT_CHECK(keep_.size() == src_len_.size(),
               "attention statistics: keep has {} rows, the batch {}", keep_.size(),
               src_len_.size());
  previous_layer_ = {-1, -1, -1};
}

int64_t AttentionStats::queries(int chain, int64_t row) const {
  return chain == 0 ? src_len_[row] : tgt_len_[row];
}

int64_t AttentionStats::visible_keys(int chain, int64_t row, int64_t query) const {
  if (chain == 1) return query + 1;  // causal
  return src_len_[row];
}

void AttentionStats::observe(models::AttentionChain chain_id, int layer, const Tensor& probs) {
  const int chain = static_cast<int>(chain_id);
  REALMT_CHECK(probs.defined(),
               "attention statistics: the model did not keep its attention probabilities");
  REALMT_CHECK(layer >= 0 && layer < layers(chain), "attention statistics: {} layer {} of {}",
               chain_name(chain_id), layer, layers(chain));
  REALMT_CHECK(probs.rank() == 4 && probs.dim(0) == static_cast<int64_t>(src_len_.size()) &&
                   probs.dim(1) == heads_,
               "attention statistics: probabilities {} for {} rows and {} heads", probs,
               src_len_.size(), heads_);
  const Tensor f = probs.dtype() == DType::kF32 ? probs : ops::cast(probs, DType::kF32);
  std::vector<float> host = f.to(Device::cpu()).to_vector<float>();
  const int64_t B = probs.dim(0), H = probs.dim(1), Tq = probs.dim(2), Tk = probs.dim(3);
  const bool pair =
      previous_layer_[chain] == layer - 1 && previous_shape_[chain] == probs.shape().vec();
  for (int64_t b = 0; b < B; ++b) {
    const int64_t nq = queries(chain, b);
    REALMT_CHECK(nq <= Tq && visible_keys(chain, b, nq - 1) <= Tk,
                 "attention statistics: row {} has {} queries and {} keys, the {} probabilities {}",
                 b, nq, visible_keys(chain, b, nq - 1), chain_name(chain_id), probs);
    for (int64_t h = 0; h < H; ++h) {
      Matrix* keep = keep_[b] ? &heatmap_[chain][layer][h] : nullptr;
      if (keep) keep->clear();
      for (int64_t i = 0; i < nq; ++i) {
        const int64_t n = visible_keys(chain, b, i);
        const size_t at = static_cast<size_t>(((b * H + h) * Tq + i) * Tk);
        const float* p = host.data() + at;
        if (keep) keep->emplace_back(p, p + n);
        if (n <= 1) continue;
        entropy_[chain][layer][h].push_back(static_cast<float>(entropy_bits(p, n)));
        if (pair)
          jsd_[chain][layer - 1][h].push_back(
              static_cast<float>(jsd_bits(previous_[chain].data() + at, p, n)));
      }
    }
  }
  previous_[chain] = std::move(host);
  previous_shape_[chain] = probs.shape().vec();
  previous_layer_[chain] = layer;
}

}  // namespace realmt::analysis
