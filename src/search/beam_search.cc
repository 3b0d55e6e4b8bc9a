#include "search/beam_search.h"

#include <algorithm>
#include <memory>

#include "search/beam_selection.h"
#include "search/beam_state.h"
#include "search/decoder_session.h"
#include "search/model_loader.h"
#include "search/vocab_checks.h"
#include "search/step_scorer.h"
#include "search/token_rules.h"

namespace realmt::search {

BeamSearch::BeamSearch(std::vector<const models::Transformer*> models,
                       std::shared_ptr<const Shortlist> shortlist)
    : models_(std::move(models)), shortlist_(std::move(shortlist)) {
  REALMT_CHECK(!models_.empty(), "beam search needs at least one model");
  check_ensemble_vocabularies(models_);
  vocab_size_ = models_[0]->config().target_vocab();
  REALMT_CHECK(!shortlist_ || shortlist_->target_vocab() == vocab_size_,
               "shortlist: made for a target vocabulary of {}, the model has {}",
               shortlist_->target_vocab(), vocab_size_);
}

std::vector<models::OutputSubset> BeamSearch::output_subsets(
    const std::vector<std::vector<int32_t>>& sources) const {
  std::vector<models::OutputSubset> out;
  if (!shortlist_) return out;
  const std::vector<int32_t> ids = shortlist_->candidates(sources);
  for (const auto* m : models_) out.push_back(m->output_subset(ids));
  return out;
}

namespace {

// One decoder per model over the state's rows (batch x beam at most); the key/value caches start
// with room for the expected output (about the source length) and double beyond it.
std::vector<std::unique_ptr<DecoderSession>> start_decoders(
    const std::vector<const models::Transformer*>& models, const BeamState& state,
    const SearchOptions& o) {
  const Tensor src = state.source_batch();
  const int64_t rows = static_cast<int64_t>(state.active().size()) * o.beam_size;
  const int64_t capacity = std::min(state.max_limit(), state.source_width() + 8);
  std::vector<std::unique_ptr<DecoderSession>> decoders;
  for (const auto* m : models)
    decoders.push_back(std::make_unique<DecoderSession>(*m, src, o.use_cache, rows, capacity));
  return decoders;
}

}  // namespace

std::vector<std::vector<Hypothesis>> BeamSearch::search(
    const std::vector<std::vector<int32_t>>& sources, const SearchOptions& o) const {
  o.validate(models_.size());
  if (sources.empty()) return {};
  const models::ModelConfig& config = models_[0]->config();
  BeamState state(sources, o, config, models_.size());
  const auto decoders = start_decoders(models_, state, o);
  const StepScorer scorer(models_, o.weights, config.eos_id, output_subsets(sources));
  const TokenRules rules(config, o, models_[0]->device());
  const auto strategy = make_selection(o);
  LoopGuard guard;
  for (int64_t t = 0; !state.done(); ++t) {
    const int64_t rows = state.rows();
    std::vector<Tensor> hidden(models_.size());
    for (size_t m = 0; m < models_.size(); ++m) hidden[m] = decoders[m]->step(state.last_tokens());
    const StepScores scores =
        scorer.score(hidden, rules.bias(t), step_candidates(state, *strategy, rules));
    const std::vector<Expansion> chosen =
        select_expansions(state, scores.candidates, rules, *strategy, guard, t);
    const std::vector<float> model_lp = scorer.model_log_probs(scores, state.rows_of(chosen));
    const bool align = o.alignment != AlignmentKind::kNone;
    state.extend(chosen, model_lp, align ? decoders[0]->cross_attention() : std::vector<float>{},
                 decoders[0]->source_length(), t);
    if (o.on_step) o.on_step(StepInfo{t, rows});
    const RowMove move = state.advance();
    if (!move.identity)
      for (auto& d : decoders) d->reorder(move.rows, move.same_sources);
  }
  return state.take_results();
}

}  // namespace realmt::search
