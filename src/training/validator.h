// Validation: the validation corpus encoded once, scored under no-grad without dropout.
//   ce-mean-words: cross-entropy (no label smoothing) per target token, eos included
//   perplexity:    exp(ce-mean-words)
#pragma once

#include <map>
#include <string>
#include <vector>

#include "data/vocab.h"
#include "models/transformer.h"

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
  // Whether `a` is better than `b` for `metric` (all supported metrics: lower is better).
  static bool better(const std::string& metric, double a, double b);

 private:
  std::vector<ValidBatch> batches_;
  int64_t sentences_ = 0;
};

}  // namespace realmt::training
