#include "training/validator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "data/parallel_reader.h"
#include "core/parallel.h"
#include "graph/var.h"
#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "search/beam_search.h"

namespace realmt::training {

void shift_target(const std::vector<int32_t>& tgt, int64_t rows, int64_t len, Tensor* tgt_in, Tensor* tgt_out) {
  std::vector<int32_t> in(tgt.size());
  for (int64_t b = 0; b < rows; ++b) {
    in[b * len] = data::kBosId;
    for (int64_t t = 1; t < len; ++t) {
      const int32_t prev = tgt[b * len + t - 1];
      // After eos the row is padding: feed pad, not eos, so padded positions stay inert.
      in[b * len + t] = prev == data::kEosId ? data::kPadId : prev;
    }
  }
  *tgt_in = Tensor::from_vector(in, {rows, len});
  *tgt_out = Tensor::from_vector(tgt, {rows, len});
}

Validator::Validator(const std::string& src_path, const std::string& tgt_path, const data::Vocab& vocab,
                     int64_t batch_sentences, int64_t max_length)
    : vocab_(&vocab), batch_sentences_(batch_sentences) {
  REALMT_CHECK(batch_sentences > 0, "valid-mini-batch must be positive, got {}", batch_sentences);
  struct Pair {
    std::vector<int32_t> src, tgt;
  };
  std::vector<Pair> pairs;
  data::ParallelReaderOptions ro;
  ro.src_path = src_path;
  ro.tgt_path = tgt_path;
  data::ParallelReader reader(ro);
  data::SentencePair line;
  while (reader.next(line)) {
    Pair p{vocab.encode(line.src), vocab.encode(line.tgt)};
    // Validation keeps every pair; over-long ones are cropped (as the decoder would see them).
    if (max_length > 0) {
      if (static_cast<int64_t>(p.src.size()) > max_length) p.src.resize(max_length);
      if (static_cast<int64_t>(p.tgt.size()) > max_length) p.tgt.resize(max_length);
    }
    sources_.push_back(p.src);
    references_.push_back(line.tgt);
    p.src.push_back(data::kEosId);
    p.tgt.push_back(data::kEosId);
    pairs.push_back(std::move(p));
  }
  REALMT_CHECK(!pairs.empty(), "valid-sets {} / {}: no non-empty sentence pairs", src_path, tgt_path);
  sentences_ = static_cast<int64_t>(pairs.size());
  std::vector<size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return pairs[a].src.size() < pairs[b].src.size(); });
  for (size_t i = 0; i < order.size(); i += batch_sentences) {
    const size_t end = std::min(order.size(), i + static_cast<size_t>(batch_sentences));
    const int64_t rows = static_cast<int64_t>(end - i);
    size_t s_len = 0, t_len = 0;
    for (size_t j = i; j < end; ++j) {
      s_len = std::max(s_len, pairs[order[j]].src.size());
      t_len = std::max(t_len, pairs[order[j]].tgt.size());
    }
    std::vector<int32_t> src(rows * s_len, data::kPadId), tgt(rows * t_len, data::kPadId);
    ValidBatch vb;
    for (size_t j = i; j < end; ++j) {
      const Pair& p = pairs[order[j]];
      std::copy(p.src.begin(), p.src.end(), src.begin() + (j - i) * s_len);
      std::copy(p.tgt.begin(), p.tgt.end(), tgt.begin() + (j - i) * t_len);
      vb.tokens += static_cast<int64_t>(p.tgt.size());
    }
    vb.src = Tensor::from_vector(src, {rows, static_cast<int64_t>(s_len)});
    shift_target(tgt, rows, static_cast<int64_t>(t_len), &vb.tgt_in, &vb.tgt_out);
    batches_.push_back(std::move(vb));
  }
}

std::map<std::string, double> Validator::run(const models::Transformer& model,
                                             const std::vector<std::string>& metrics) const {
  graph::NoGradGuard no_grad;
  double loss = 0;
  int64_t tokens = 0;
  for (const ValidBatch& b : batches_) {
    const models::LossOutput out = model.loss(b.src, b.tgt_in, b.tgt_out, 0.0, models::ForwardContext{});
    loss += out.loss.value().item();
    tokens += out.target_tokens;
  }
  const double ce = loss / std::max<int64_t>(tokens, 1);
  std::map<std::string, double> result;
  std::vector<std::string> hyps;
  for (const std::string& m : metrics) {
    if (m == "ce-mean-words") {
      result[m] = ce;
    } else if (m == "perplexity") {
      result[m] = std::exp(ce);
    } else if (m == "bleu" || m == "chrf") {
      if (hyps.empty()) hyps = translate(model);
      std::unique_ptr<metrics::Metric> metric;
      if (m == "bleu") metric = std::make_unique<metrics::Bleu>(metrics::BleuOptions{});
      else metric = std::make_unique<metrics::Chrf>(metrics::ChrfOptions{});
      metric->set_references({references_});
      result[m] = metric->corpus_score(metric->corpus_stats(hyps, std::max(1, num_threads()))).score;
    } else {
      REALMT_FAIL("valid-metrics: '{}' is not available in realmt-train (known: ce-mean-words, perplexity, bleu, chrf)",
                  m);
    }
  }
  return result;
}

std::vector<std::string> Validator::translate(const models::Transformer& model) const {
  // Length-sorted batches (less padding), results back in corpus order.
  std::vector<size_t> order(sources_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sources_[a].size() < sources_[b].size(); });
  const search::BeamSearch search({&model});
  std::vector<std::string> out(sources_.size());
  for (size_t i = 0; i < order.size(); i += static_cast<size_t>(batch_sentences_)) {
    const size_t end = std::min(order.size(), i + static_cast<size_t>(batch_sentences_));
    std::vector<std::vector<int32_t>> batch;
    for (size_t j = i; j < end; ++j) batch.push_back(sources_[order[j]]);
    const auto hyps = search.search(batch, search_);
    // No finite-scoring hypothesis (a diverged model): an empty translation, which scores 0.
    for (size_t j = i; j < end; ++j)
      out[order[j]] = hyps[j - i].empty() ? std::string() : vocab_->decode(hyps[j - i][0].tokens);
  }
  return out;
}

bool Validator::better(const std::string& metric, double a, double b) {
  if (!std::isfinite(b)) return std::isfinite(a);
  return metric == "bleu" || metric == "chrf" ? a > b : a < b;
}

}  // namespace realmt::training
