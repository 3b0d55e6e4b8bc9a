// Tiny random models for the search tests: vocabulary pad, unk, <s>, </s> and three words
// (ids 4, 5, 6), so every output up to a few tokens can be enumerated.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "core/parallel.h"
#include "models/transformer.h"
#include "ops/softmax.h"

namespace realmt::search::test {

inline constexpr int64_t kTinyVocab = 7;

// The tiny models' GEMMs run on one thread: threaded BLIS barriers spin for seconds per GEMM
// when the 2-core machine is busy with other jobs (the models are far too small to gain).
inline const bool kOneThread = (set_num_threads(1), true);

inline std::unique_ptr<models::Transformer> tiny_model(uint64_t seed, int64_t vocab = kTinyVocab,
                                                       const std::string& residual = "mean") {
  models::ModelConfig c;
  c.vocab_size = vocab;
  c.enc_depth = 2;
  c.dec_depth = 2;
  c.dim_emb = 16;
  c.heads = 2;
  c.dim_ffn = 32;
  c.dropout = 0.0;
  c.admin_init = models::AdminInit::kClosedForm;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      parse_enum<layers::ResidualMode>(residual, "residual attention");
  auto m = std::make_unique<models::Transformer>(c);
  m->allocate(Device::cpu());
  m->init(seed);
  return m;
}

// log p(target + eos | source + eos) by one full (teacher-forced) forward pass, in double.
inline double full_log_prob(const models::Transformer& model, const std::vector<int32_t>& source,
                            const std::vector<int32_t>& target) {
  graph::NoGradGuard no_grad;
  std::vector<int32_t> src = source, in{2}, out = target;
  src.push_back(3);
  in.insert(in.end(), target.begin(), target.end());
  out.push_back(3);
  const int64_t s = static_cast<int64_t>(src.size()), t = static_cast<int64_t>(in.size());
  const models::Encoded enc =
      model.encode(Tensor::from_vector(src, {1, s}), models::ForwardContext{});
  const Tensor logp = ops::log_softmax(
      model.logits(model.decode(enc, Tensor::from_vector(in, {1, t}), models::ForwardContext{}))
          .value());
  const int64_t v = model.config().vocab_size;
  double sum = 0;
  for (int64_t j = 0; j < t; ++j) sum += logp.at(j * v + out[j]);
  return sum;
}

// Every target of words {4, 5, 6} with at most max_words words (eos follows).
inline std::vector<std::vector<int32_t>> all_targets(int max_words) {
  std::vector<std::vector<int32_t>> all{{}};
  for (size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(all[i].size()) < max_words)
      for (int32_t w = 4; w < 7; ++w) {
        auto next = all[i];
        next.push_back(w);
        all.push_back(next);
      }
  return all;
}

}  // namespace realmt::search::test
