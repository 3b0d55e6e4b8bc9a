#include "search/scorer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "search/model_loader.h"
#include "search/vocab_checks.h"
#include "ops/cast.h"
#include "ops/index_select.h"
#include "ops/softmax.h"

namespace realmt::search {

double normalized_score(double log_prob, int64_t length, double normalize, double word_penalty) {
  const double cost = log_prob - word_penalty * static_cast<double>(length);
  return normalize == 0.0 ? cost : cost / std::pow(static_cast<double>(length), normalize);
}

Scorer::Scorer(std::vector<const models::Transformer*> models) : models_(std::move(models)) {
  REALMT_CHECK(!models_.empty(), "scoring needs at least one model");
  check_ensemble_vocabularies(models_);
}

std::vector<PairScore> Scorer::score(const std::vector<std::vector<int32_t>>& sources,
                                     const std::vector<std::vector<int32_t>>& targets,
                                     const ScoreOptions& o) const {
  REALMT_CHECK(sources.size() == targets.size(), "{} source sentences but {} targets",
               sources.size(), targets.size());
  REALMT_CHECK(o.mini_batch > 0, "mini-batch must be positive, got {}", o.mini_batch);
  const size_t M = models_.size();
  REALMT_CHECK(o.weights.empty() || o.weights.size() == M, "weights: {} given for {} models",
               o.weights.size(), M);
  const std::vector<double> w = o.weights.empty() ? std::vector<double>(M, 1.0) : o.weights;
  const models::ModelConfig& config = models_[0]->config();
  const int64_t V = config.target_vocab(), source_vocab = config.vocab_size;
  const int32_t pad = config.pad_id, eos = config.eos_id, start = config.decoder_start_id;
  std::vector<PairScore> out(sources.size());
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sources[a].size() + targets[a].size() < sources[b].size() + targets[b].size();
  });
  graph::NoGradGuard no_grad;
  for (size_t begin = 0; begin < order.size(); begin += static_cast<size_t>(o.mini_batch)) {
    const size_t end = std::min(order.size(), begin + static_cast<size_t>(o.mini_batch));
    const int64_t b = static_cast<int64_t>(end - begin);
    int64_t S = 0, T = 0;
    for (size_t i = begin; i < end; ++i) {
      S = std::max<int64_t>(S, static_cast<int64_t>(sources[order[i]].size()) + 1);
      T = std::max<int64_t>(T, static_cast<int64_t>(targets[order[i]].size()) + 1);
    }
    std::vector<int32_t> src(b * S, pad), in(b * T, pad), flat;
    for (int64_t r = 0; r < b; ++r) {
      const auto& s = sources[order[begin + r]];
      const auto& t = targets[order[begin + r]];
      for (size_t j = 0; j < s.size(); ++j) {
        REALMT_CHECK(s[j] >= 0 && s[j] < source_vocab,
                     "source id {} outside the vocabulary (size {})", s[j], source_vocab);
        src[r * S + j] = s[j];
      }
      src[r * S + s.size()] = eos;
      in[r * T] = start;
      for (size_t j = 0; j <= t.size(); ++j) {
        const int32_t y = j < t.size() ? t[j] : eos;
        REALMT_CHECK(y >= 0 && y < V, "target id {} outside the vocabulary (size {})", y, V);
        if (j + 1 < static_cast<size_t>(T)) in[r * T + j + 1] = y;
        flat.push_back(static_cast<int32_t>((r * T + static_cast<int64_t>(j)) * V + y));
      }
    }
    const Tensor src_t = Tensor::from_vector(src, {b, S}), in_t = Tensor::from_vector(in, {b, T});
    for (size_t m = 0; m < M; ++m) {
      const models::Transformer& model = *models_[m];
      const models::Encoded enc = model.encode(src_t, models::ForwardContext{});
      Tensor logp =
          ops::log_softmax(model.logits(model.decode(enc, in_t, models::ForwardContext{})).value());
      if (logp.dtype() != DType::kF32) logp = ops::cast(logp, DType::kF32);
      const Tensor idx =
          Tensor::from_vector(flat, {static_cast<int64_t>(flat.size())}).to(logp.device());
      const std::vector<float> lp =
          ops::index_select(logp.reshape({b * T * V}), 0, idx).to_vector<float>();
      size_t k = 0;
      for (int64_t r = 0; r < b; ++r) {
        PairScore& p = out[order[begin + r]];
        const size_t n = targets[order[begin + r]].size() + 1;
        if (m == 0) {
          p.model_log_probs.assign(M, 0.0);
          p.token_log_probs.assign(n, 0.0f);
        }
        for (size_t j = 0; j < n; ++j, ++k) {
          p.model_log_probs[m] += lp[k];
          p.token_log_probs[j] += static_cast<float>(w[m] * lp[k]);
        }
      }
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    PairScore& p = out[i];
    p.log_prob = 0.0;
    for (size_t m = 0; m < M; ++m) p.log_prob += w[m] * p.model_log_probs[m];
    p.score = normalized_score(p.log_prob, static_cast<int64_t>(p.token_log_probs.size()),
                               o.normalize, o.word_penalty);
  }
  return out;
}

}  // namespace realmt::search
