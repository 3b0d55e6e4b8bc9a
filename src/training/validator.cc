#include "training/validator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "data/parallel_reader.h"
#include "core/parallel.h"
#include "graph/var.h"
#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "search/beam_search.h"

namespace realmt::training {

void shift_target(const std::vector<int32_t>& tgt, int64_t rows, int64_t len,
                  const data::TableSpecialIds& ids, Tensor* tgt_in, Tensor* tgt_out) {
  std::vector<int32_t> in(tgt.size());
  for (int64_t b = 0; b < rows; ++b) {
    in[b * len] = ids.decoder_start;
    for (int64_t t = 1; t < len; ++t) {
      const int32_t prev = tgt[b * len + t - 1];
      // After eos the row is padding: feed pad, not eos, so padded positions stay inert.
      in[b * len + t] = prev == ids.eos ? ids.pad : prev;
    }
  }
  *tgt_in = Tensor::from_vector(in, {rows, len});
  *tgt_out = Tensor::from_vector(tgt, {rows, len});
}

const std::vector<std::string>& validation_metric_names() {
  static const std::vector<std::string> names = {
      "cross-entropy", "ce-mean",        "ce-sum", "ce-mean-words", "perplexity",  "bleu",
      "bleu-detok",    "bleu-segmented", "chrf",   "translation",   "valid-script"};
  return names;
}

Validator::Validator(const std::string& src_path, const std::string& tgt_path,
                     const data::Vocab& vocab, const ValidatorOptions& options)
    : vocab_(&vocab), options_(options) {
  REALMT_CHECK(options.batch_sentences > 0, "valid-mini-batch must be positive, got {}",
               options.batch_sentences);
  const data::TableSpecialIds ids = vocab.ids();
  struct Pair {
    std::vector<int32_t> src, tgt;
  };
  std::vector<Pair> pairs;
  data::ParallelReaderOptions ro;
  ro.src_path = src_path;
  ro.tgt_path = tgt_path;
  data::ParallelReader reader(ro);
  data::SentencePair line;
  const int64_t max_length = options.max_length;
  while (reader.next(line)) {
    Pair p{vocab.encode(line.src), vocab.encode_target(line.tgt)};
    // Validation keeps every pair; over-long ones are cropped (valid-max-length, as Marian).
    if (max_length > 0) {
      if (static_cast<int64_t>(p.src.size()) > max_length) p.src.resize(max_length);
      if (static_cast<int64_t>(p.tgt.size()) > max_length) p.tgt.resize(max_length);
    }
    sources_.push_back(p.src);
    references_.push_back(line.tgt);
    std::string pieces;
    for (int32_t id : p.tgt) {
      if (!pieces.empty()) pieces += ' ';
      pieces += vocab.piece(id);
    }
    reference_pieces_.push_back(std::move(pieces));
    p.src.push_back(ids.eos);
    p.tgt.push_back(ids.eos);
    pairs.push_back(std::move(p));
  }
  REALMT_CHECK(!pairs.empty(), "valid-sets {} / {}: no non-empty sentence pairs", src_path,
               tgt_path);
  sentences_ = static_cast<int64_t>(pairs.size());
  std::vector<size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pairs[a].src.size() < pairs[b].src.size(); });
  const size_t per_batch = static_cast<size_t>(options.batch_sentences);
  for (size_t i = 0; i < order.size(); i += per_batch) {
    const size_t end = std::min(order.size(), i + per_batch);
    const int64_t rows = static_cast<int64_t>(end - i);
    size_t s_len = 0, t_len = 0;
    for (size_t j = i; j < end; ++j) {
      s_len = std::max(s_len, pairs[order[j]].src.size());
      t_len = std::max(t_len, pairs[order[j]].tgt.size());
    }
    std::vector<int32_t> src(rows * s_len, ids.pad), tgt(rows * t_len, ids.pad);
    ValidBatch vb;
    vb.sentences = rows;
    for (size_t j = i; j < end; ++j) {
      const Pair& p = pairs[order[j]];
      std::copy(p.src.begin(), p.src.end(), src.begin() + (j - i) * s_len);
      std::copy(p.tgt.begin(), p.tgt.end(), tgt.begin() + (j - i) * t_len);
      vb.tokens += static_cast<int64_t>(p.tgt.size());
    }
    vb.src = Tensor::from_vector(src, {rows, static_cast<int64_t>(s_len)});
    shift_target(tgt, rows, static_cast<int64_t>(t_len), ids, &vb.tgt_in, &vb.tgt_out);
    batches_.push_back(std::move(vb));
  }
}

std::map<std::string, double> Validator::run(const models::Transformer& model,
                                             const std::vector<std::string>& metrics,
                                             const ValidationContext& context) const {
  graph::NoGradGuard no_grad;
  double loss = 0;
  int64_t tokens = 0, sentences = 0;
  for (const ValidBatch& b : batches_) {
    const models::LossOutput out =
        model.loss(b.src, b.tgt_in, b.tgt_out, 0.0, models::ForwardContext{});
    loss += out.loss.value().item();
    tokens += out.target_tokens;
    sentences += b.sentences;
  }
  const double ce = loss / std::max<int64_t>(tokens, 1);
  std::map<std::string, double> result;
  std::vector<std::vector<int32_t>> ids;  // translations, corpus order
  std::vector<std::string> hyps;
  for (const std::string& m : metrics) {
    if (m == "cross-entropy" || m == "ce-mean") {
      result[m] = loss / std::max<int64_t>(sentences, 1);
    } else if (m == "ce-sum") {
      result[m] = loss;
    } else if (m == "ce-mean-words") {
      result[m] = ce;
    } else if (m == "perplexity") {
      result[m] = std::exp(ce);
    } else if (m == "valid-script") {
      result[m] = script_score({}, m, context);
    } else if (m == "bleu" || m == "bleu-detok" || m == "bleu-segmented" || m == "chrf" ||
               m == "translation") {
      if (ids.empty()) {
        ids = translate(model, context);
        for (const auto& t : ids) hyps.push_back(vocab_->decode(t));
        if (!options_.translation_output.empty())
          write_translations(expand_output_template(options_.translation_output, context), hyps);
      }
      if (m == "translation") {
        result[m] = script_score(hyps, m, context);
        continue;
      }
      std::unique_ptr<metrics::Metric> metric;
      std::vector<std::string> scored = hyps;
      if (m == "chrf") {
        metric = std::make_unique<metrics::Chrf>(metrics::ChrfOptions{});
        metric->set_references({references_});
      } else if (m == "bleu-segmented") {
        // Marian's BLEU of the segmentation: pieces against pieces, nothing tokenized.
        metrics::BleuOptions bo;
        bo.tokenizer = metrics::TokenizerKind::kNone;
        metric = std::make_unique<metrics::Bleu>(bo);
        metric->set_references({reference_pieces_});
        for (size_t i = 0; i < ids.size(); ++i) {
          scored[i].clear();
          for (int32_t id : ids[i]) {
            if (!scored[i].empty()) scored[i] += ' ';
            scored[i] += vocab_->piece(id);
          }
        }
      } else {
        metric = std::make_unique<metrics::Bleu>(metrics::BleuOptions{});
        metric->set_references({references_});
      }
      result[m] =
          metric->corpus_score(metric->corpus_stats(scored, std::max(1, num_threads()))).score;
    } else {
      REALMT_FAIL(
          "valid-metrics: '{}' is not a validation metric (known: cross-entropy, ce-mean, ce-sum, "
          "ce-mean-words, perplexity, bleu, bleu-detok, bleu-segmented, chrf, translation, "
          "valid-script)",
          m);
    }
  }
  return result;
}

std::vector<std::vector<int32_t>> Validator::translate(const models::Transformer& model,
                                                       const ValidationContext& c) const {
  if (c.log) c.log("Translating validation set...");
  const auto t0 = std::chrono::steady_clock::now();
  // Length-sorted batches (less padding), results back in corpus order.
  std::vector<size_t> order(sources_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources_[a].size() < sources_[b].size(); });
  const search::BeamSearch search({&model});
  std::vector<std::vector<int32_t>> out(sources_.size());
  const size_t per_batch = static_cast<size_t>(options_.batch_sentences);
  for (size_t i = 0; i < order.size(); i += per_batch) {
    const size_t end = std::min(order.size(), i + per_batch);
    std::vector<std::vector<int32_t>> batch;
    for (size_t j = i; j < end; ++j) batch.push_back(sources_[order[j]]);
    const auto hyps = search.search(batch, search_);
    // No finite-scoring hypothesis (a diverged model): an empty translation, which scores 0.
    for (size_t j = i; j < end; ++j)
      out[order[j]] = hyps[j - i].empty() ? std::vector<int32_t>() : hyps[j - i][0].tokens;
  }
  if (c.log) {
    // Marian's geometric sample of the translations: lines 0-5, then 10, 20, 40, ...
    for (size_t id = 0; id < out.size(); id = id < 5 ? id + 1 : id < 10 ? 10 : 2 * id)
      c.log("Best translation " + std::to_string(id) + " : " + vocab_->decode(out[id]));
    char took[64];
    std::snprintf(took, sizeof took, "Total translation time: %.5fs",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    c.log(took);
  }
  return out;
}

bool Validator::higher_is_better(const std::string& metric) {
  return !(metric == "cross-entropy" || metric == "ce-mean" || metric == "ce-sum" ||
           metric == "ce-mean-words" || metric == "perplexity");
}

bool Validator::better(const std::string& metric, double a, double b) {
  if (!std::isfinite(b)) return std::isfinite(a);
  return higher_is_better(metric) ? a > b : a < b;
}

}  // namespace realmt::training
