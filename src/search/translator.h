// The text-level translator: an ensemble of models with its SentencePiece vocabulary.
// realmt-translate, realmt-train's bleu/chrf validation and the server call it.
//
//   Translator t = Translator::load({"model.safetensors"}, "vocab.spm", Device::cpu());
//   auto ids = t.translate(encoded_batch, options);            // one batch of subword ids
//   auto out = t.translate_lines(lines, options, batching);    // text in, text out, input order
//   (out[i].error says why line i has no translation)
//
// Thread safety: the methods are const and keep no state between calls, so one caller at a time
// per Translator is always safe (and concurrent callers are too: models are only read).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/vocab.h"
#include "models/transformer.h"
#include "search/beam_search.h"
#include "search/model_loader.h"
#include "search/search_options.h"
#include "search/shortlist.h"

namespace realmt::search {

// How translate_lines groups sentences (Marian's names).
struct BatchingOptions {
  int64_t mini_batch = 32;       // sentences a batch at most (0: no limit)
  int64_t mini_batch_words = 0;  // source tokens a batch at most, padding counted (0: no limit)
  // Marian's max-length for the input: sources of more subwords (eos counted) are cropped to it
  // with max_length_crop, else not translated (an error, `skipped`). 0: no limit.
  int64_t max_length = 0;
  bool max_length_crop = false;
};

struct TextHypothesis {
  std::string text;  // decoded with the vocabulary
  Hypothesis hyp;
};

// One input line's result: its hypotheses, best first, or why it has none.
struct LineTranslation {
  std::vector<TextHypothesis> hypotheses;  // empty exactly when error is set
  std::string error;
  bool skipped = false;  // error is the source's length over max-length (Marian: an empty line)
};

// Why translate() gave a sentence no hypothesis.
inline constexpr const char* kNoFiniteTranslation =
    "no translation with a finite score (the model's scores overflowed to NaN or Inf for this "
    "sentence: a damaged or diverged model)";

class Translator {
 public:
  // Takes the models (one or more, equal vocabularies, same device) and their vocabulary.
  Translator(std::vector<std::unique_ptr<models::Transformer>> models, data::Vocab vocab);
  // Loads every checkpoint onto `device` (quantized when asked) and checks each against the
  // vocabulary.
  static Translator load(const std::vector<std::string>& model_paths, const std::string& vocab_path,
                         Device device, Quantize quantize = Quantize::kNone);
  // The same with Marian's vocabs list: once, or once a side (search::load_vocab; a converted
  // model's two SentencePiece models).
  static Translator load(const std::vector<std::string>& model_paths,
                         const std::vector<std::string>& vocab_paths, Device device,
                         Quantize quantize = Quantize::kNone);

  // One batch of subword ids (without eos), as BeamSearch::search, except that an empty source
  // gets one empty hypothesis (score 0) without a search. A sentence whose search found no
  // hypothesis with a finite score (a model whose output overflows to NaN or Inf) gets an
  // empty list: callers report kNoFiniteTranslation for that sentence.
  std::vector<std::vector<Hypothesis>> translate(const std::vector<std::vector<int32_t>>& sources,
                                                 const SearchOptions& options) const;
  // Encodes the lines, sorts them by length, decodes them in mini-batches and returns the
  // results in input order (the caller's maxi-batch is `lines`). A line longer than
  // batching.max_length (without max_length_crop), or without a finite-scoring hypothesis, gets
  // an error instead (`skipped` for the first).
  std::vector<LineTranslation> translate_lines(const std::vector<std::string>& lines,
                                               const SearchOptions& options,
                                               const BatchingOptions& batching) const;
  // The same for sources already encoded (subword ids without eos; the Python API's token
  // lists): max-length, sorting, mini-batches and results in input order as above.
  std::vector<LineTranslation> translate_ids(std::vector<std::vector<int32_t>> ids,
                                             const SearchOptions& options,
                                             const BatchingOptions& batching) const;

  // Decode with a lexical shortlist from now on (null: without); made for this vocabulary
  // (load_shortlist). Not while another thread translates.
  void use_shortlist(std::shared_ptr<const Shortlist> shortlist);
  const Shortlist* shortlist() const { return shortlist_.get(); }

  const data::Vocab& vocab() const { return vocab_; }
  std::vector<const models::Transformer*> models() const;

 private:
  std::vector<std::unique_ptr<models::Transformer>> models_;
  data::Vocab vocab_;
  std::unique_ptr<BeamSearch> search_;
  std::shared_ptr<const Shortlist> shortlist_;
};

// Marian's --shortlist FILE [first [best [threshold]]] (empty: none) read against the
// translator's vocabulary; a GPU translator is refused (the shortlist is checked on the CPU only).
std::shared_ptr<const Shortlist> load_shortlist(const std::vector<std::string>& spec,
                                                const Translator& translator);
// The log line of a shortlist's use: batches and their average candidates.
std::string shortlist_usage(const Shortlist& shortlist);

// Indices of `lengths` grouped into batches: sorted by length (stable), each batch within
// the limits and never empty.
std::vector<std::vector<size_t>> make_batches(const std::vector<size_t>& lengths,
                                              const BatchingOptions& batching);

}  // namespace realmt::search
