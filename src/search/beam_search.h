// Batched beam search over an ensemble of Transformers (semantics in search/search_options.h).
//
// All hypotheses of all sentences of a batch are rows of one tensor, grouped by sentence; the
// source is encoded once; every step runs each model's decoder once over the rows (key/value
// cache, residual-attention rows handed from layer to layer inside the step). Hypotheses are
// back-pointers into a history (search/hypothesis_history.h), traced back when they finish. Rows
// move only when a hypothesis changes parent, in place in the decoder states (beam moves gather
// the target-side caches only); finished sentences leave the batch, and only then are the
// source-side rows gathered.
// A step is four parts, each in its own file and tested alone:
//   search/step_scorer.h     the output layer over the rows: every row's k best tokens (one
//                            model: one fused op, no [N, V] tensor; an ensemble: the models'
//                            weighted log-probabilities and ops::topk), and per-model scores;
//   search/token_rules.h     the token bias (pad, <s>, <unk>, eos before min-length), the length
//                            rules and the loop guard;
//   search/beam_selection.h  gathering each sentence's allowed expansions on the host, and one
//                            strategy per beam mode (ShrinkingBeam, FullBeam) choosing among them;
//   search/beam_state.h      live and finished hypotheses per sentence, the active sentences and
//                            the row mapping the decoders follow (DecoderSession::reorder).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/transformer.h"
#include "search/search_options.h"
#include "search/shortlist.h"

namespace realmt::search {

class BeamSearch {
 public:
  // The models of the ensemble (one or more; equal vocabulary sizes, same device). They are
  // held by reference and must outlive the BeamSearch; they are only read.
  // With a lexical shortlist (search/shortlist.h), each batch's output layer scores only the
  // batch's candidate target ids.
  explicit BeamSearch(std::vector<const models::Transformer*> models,
                      std::shared_ptr<const Shortlist> shortlist = nullptr);

  // sources[i]: the subword ids of sentence i without eos (the search appends it).
  // Returns per sentence, in input order, min(n_best, finished) hypotheses sorted by score,
  // best first. Reentrant: concurrent calls need nothing but the models to stay unchanged.
  std::vector<std::vector<Hypothesis>> search(const std::vector<std::vector<int32_t>>& sources,
                                              const SearchOptions& options) const;

  size_t num_models() const { return models_.size(); }
  int64_t vocab_size() const { return vocab_size_; }

 private:
  // Each model's output table restricted to the batch's shortlist candidates (none: no shortlist).
  std::vector<models::OutputSubset> output_subsets(
      const std::vector<std::vector<int32_t>>& sources) const;

  std::vector<const models::Transformer*> models_;
  std::shared_ptr<const Shortlist> shortlist_;
  int64_t vocab_size_ = 0;
};

}  // namespace realmt::search
