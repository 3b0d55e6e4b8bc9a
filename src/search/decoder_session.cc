#include "search/decoder_session.h"

#include "data/vocab.h"
#include "ops/cast.h"
#include "ops/index_select.h"
#include "ops/slice.h"

namespace realmt::search {

DecoderSession::DecoderSession(const models::Transformer& model, const Tensor& src, bool use_cache,
                               int64_t max_rows, int64_t initial_capacity)
    : model_(model), use_cache_(use_cache), source_length_(src.dim(1)) {
  graph::NoGradGuard no_grad;
  models::Encoded enc = model_.encode(src, models::ForwardContext{});
  if (use_cache_)
    state_ = model_.start(enc, {.max_rows = max_rows, .initial_capacity = initial_capacity});
  else
    enc_ = enc;
}

Tensor DecoderSession::step(const std::vector<int32_t>& last_tokens) {
  graph::NoGradGuard no_grad;
  const int64_t n = static_cast<int64_t>(last_tokens.size());
  if (use_cache_) return model_.step_hidden(state_, Tensor::from_vector(last_tokens, {n}));
  // No cache: the full causal decoder over <s> y_1 .. y_t, then the last position only.
  if (prefix_.empty()) prefix_.assign(n, {});
  REALMT_ASSERT(static_cast<int64_t>(prefix_.size()) == n, "prefix rows {} vs tokens {}",
                prefix_.size(), n);
  for (int64_t r = 0; r < n; ++r) prefix_[r].push_back(last_tokens[r]);
  const int64_t t = static_cast<int64_t>(prefix_[0].size());
  std::vector<int32_t> flat;
  flat.reserve(n * t);
  for (const auto& p : prefix_) flat.insert(flat.end(), p.begin(), p.end());
  const graph::Var h =
      model_.decode(enc_, Tensor::from_vector(flat, {n, t}), models::ForwardContext{});
  return ops::slice(h.value(), 1, t - 1, t)
      .reshape({n, model_.config().dim_emb});  // the last position
}

void DecoderSession::reorder(const std::vector<int32_t>& rows, bool same_sources) {
  graph::NoGradGuard no_grad;
  if (use_cache_) {
    model_.reorder(state_, rows, same_sources);  // in place; beam moves leave the source side
    return;
  }
  const Tensor idx = Tensor::from_vector(rows, {static_cast<int64_t>(rows.size())});
  if (!same_sources) {
    const Tensor d = idx.to(enc_.out.device());
    enc_.out = graph::Var(ops::index_select(enc_.out.value(), 0, d));
    enc_.mask = ops::index_select(enc_.mask, 0, d);
  }
  if (prefix_.empty()) return;
  std::vector<std::vector<int32_t>> next(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) next[i] = prefix_[rows[i]];
  prefix_ = std::move(next);
}

std::vector<float> DecoderSession::cross_attention() const {
  REALMT_CHECK(use_cache_, "alignments need the key/value cache decoder");
  const Tensor& p = state_.layers.back().cross_probs;  // [N, H, 1, S]
  REALMT_CHECK(p.defined(), "no decoder step has run yet");
  const Tensor host = ops::cast(p, DType::kF32).to(Device::cpu());
  const int64_t n = host.dim(0), h = host.dim(1), s = host.dim(3);
  std::vector<float> out(n * s, 0.0f);
  const float* src = host.data<float>();
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k = 0; k < h; ++k)
      for (int64_t j = 0; j < s; ++j)
        out[r * s + j] += src[(r * h + k) * s + j] / static_cast<float>(h);
  return out;
}

}  // namespace realmt::search
