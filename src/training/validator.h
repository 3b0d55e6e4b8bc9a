// Validation: the validation corpus encoded once, scored under no-grad without dropout.
//   ce-mean-words: cross-entropy (no label smoothing) per target token, eos included
//   perplexity:    exp(ce-mean-words)
//   bleu, chrf:    sacreBLEU's corpus BLEU (13a) and chrF2 of the validation sources translated
//                  by beam search (search/beam_search.h, search_options()) against the raw
//                  target lines; higher is better
#pragma once

#include <map>
#include <string>
#include <vector>

#include "data/vocab.h"
#include "models/transformer.h"
#include "search/search_options.h"

namespace realmt::training {

struct ValidBatch {
  Tensor src, tgt_in, tgt_out;  // i32 [B, S], [B, T], [B, T]
  int64_t tokens = 0;
};

// Decoder input and output from target rows ending in eos: in = <s> y_1 .. y_{T-1}, out = y.
void shift_target(const std::vector<int32_t>& tgt, int64_t rows, int64_t len, Tensor* tgt_in, Tensor* tgt_out);

class Validator {
 public:
  Validator(const std::string& src_path, const std::string& tgt_path, const data::Vocab& vocab,
            int64_t batch_sentences, int64_t max_length);
  // Metric name -> value.
  std::map<std::string, double> run(const models::Transformer& model, const std::vector<std::string>& metrics) const;
  int64_t sentences() const { return sentences_; }
  // Whether `a` is better than `b` for `metric`: higher for bleu and chrf, lower for the
  // others. A `b` that is not finite (no validation yet) is beaten by any finite `a`.
  static bool better(const std::string& metric, double a, double b);
  // How bleu/chrf translate (default: beam 4, normalize 0.6, n-best 1).
  void set_search_options(const search::SearchOptions& options) { search_ = options; }
  const search::SearchOptions& search_options() const { return search_; }

 private:
  // Translations of the validation sources, detokenized, in corpus order.
  std::vector<std::string> translate(const models::Transformer& model) const;

  std::vector<ValidBatch> batches_;
  int64_t sentences_ = 0;
  const data::Vocab* vocab_ = nullptr;
  std::vector<std::vector<int32_t>> sources_;  // subword ids without eos, corpus order
  std::vector<std::string> references_;        // raw target lines, corpus order
  int64_t batch_sentences_ = 32;
  search::SearchOptions search_ = [] {
    search::SearchOptions o;
    o.normalize = 0.6;
    return o;
  }();
};

}  // namespace realmt::training
