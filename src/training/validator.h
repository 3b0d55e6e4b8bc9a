// Validation: the validation corpus encoded once, scored under no-grad without dropout. The
// metrics are Marian's (valid-metrics), with Marian's definitions:
//   cross-entropy, ce-mean   cross-entropy (no label smoothing) summed over the target tokens
//                            (eos included), averaged over the sentences
//   ce-sum                   summed over the whole validation set
//   ce-mean-words            averaged over the target tokens
//   perplexity               exp(ce-mean-words)
//   bleu, bleu-detok         sacreBLEU's corpus BLEU (13a) of the detokenized translations
//   bleu-segmented           BLEU of the subword pieces (no tokenization), as Marian's
//   chrf                     sacreBLEU's chrF2
//   translation              the translations are written to valid-translation-output (or a
//                            temporary file) and valid-script-path is run on it; its output is
//                            the score
//   valid-script             the model is saved as <model>.dev<ext> and valid-script-path is
//                            run; its output is the score
// Translations use beam search (search/beam_search.h, search_options()). Lower is better for
// the cross-entropies and perplexity, higher for the others.
#pragma once

#include <functional>
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
  int64_t sentences = 0;
};

// Decoder input and output from target rows ending in eos: in = start y_1 .. y_{T-1}, out = y,
// with the vocabulary's decoder start, eos and pad (realmt's, or a converted model's).
void shift_target(const std::vector<int32_t>& tgt, int64_t rows, int64_t len,
                  const data::TableSpecialIds& ids, Tensor* tgt_in, Tensor* tgt_out);

// The metric names valid-metrics accepts.
const std::vector<std::string>& validation_metric_names();

struct ValidatorOptions {
  int64_t batch_sentences = 32;          // valid-mini-batch
  int64_t max_length = 1000;             // valid-max-length: longer sentences are cropped
  std::string script_path;               // valid-script-path: a shell command line
  std::vector<std::string> script_args;  // valid-script-args, between the command and the file
  std::string translation_output;  // valid-translation-output: path template ({E} {U} {B} {T})
};

// Where training stands when it validates, and what validation may ask of the trainer.
struct ValidationContext {
  int64_t epoch = 1, updates = 0, updates_in_epoch = 0, tokens = 0;  // {E} {U} {B} {T}
  // Translation progress ("Translating validation set...", Best translation lines); null: quiet.
  std::function<void(const std::string&)> log;
  // valid-script: writes the weights being validated to the given path.
  std::function<void(const std::string&)> save_model;
  std::string dev_model_path;  // where valid-script's model goes (<model>.dev<ext>)
};

// valid-translation-output with Marian's {E} {U} {B} {T} filled in from `c`.
std::string expand_output_template(const std::string& path, const ValidationContext& c);
// One translation a line; throws naming the option and the file.
void write_translations(const std::string& path, const std::vector<std::string>& hyps);

class Validator {
 public:
  Validator(const std::string& src_path, const std::string& tgt_path, const data::Vocab& vocab,
            const ValidatorOptions& options);
  // Metric name -> value.
  std::map<std::string, double> run(const models::Transformer& model,
                                    const std::vector<std::string>& metrics,
                                    const ValidationContext& context = {}) const;
  int64_t sentences() const { return sentences_; }
  // Whether `a` is better than `b` for `metric`: higher for translation metrics, lower for the
  // cross-entropies. A `b` that is not finite (no validation yet) is beaten by any finite `a`.
  static bool better(const std::string& metric, double a, double b);
  static bool higher_is_better(const std::string& metric);
  // How the translation metrics translate (default: beam 4, normalize 0, n-best 1).
  void set_search_options(const search::SearchOptions& options) { search_ = options; }
  const search::SearchOptions& search_options() const { return search_; }

 private:
  // Translations of the validation sources, detokenized, in corpus order (also their pieces).
  std::vector<std::vector<int32_t>> translate(const models::Transformer& model,
                                              const ValidationContext& c) const;
  double script_score(const std::vector<std::string>& hyps, const std::string& metric,
                      const ValidationContext& c) const;

  std::vector<ValidBatch> batches_;
  int64_t sentences_ = 0;
  const data::Vocab* vocab_ = nullptr;
  ValidatorOptions options_;
  std::vector<std::vector<int32_t>> sources_;  // subword ids without eos, corpus order
  std::vector<std::string> references_;        // raw target lines, corpus order
  std::vector<std::string>
      reference_pieces_;  // their subword pieces, space-joined (bleu-segmented)
  search::SearchOptions search_;
};

}  // namespace realmt::training
