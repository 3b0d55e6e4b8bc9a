#include "search/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "ops/cast.h"
#include "ops/elementwise.h"
#include "ops/index_select.h"
#include "ops/topk.h"
#include "search/decoder_session.h"
#include "search/hypothesis_history.h"
#include "search/model_loader.h"

namespace realmt::search {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// A hypothesis still being extended: its last node in the history and its running scores.
// The loop guard's lookup, with buffers kept across hypotheses and steps (no allocation per
// hypothesis): after find(), `blocked` holds the tokens that would make an n-gram of `n`
// subwords occur a third time in the hypothesis ending at `node` (its last n - 1 tokens followed
// by the token).
struct LoopGuard {
  std::vector<int32_t> tokens, blocked;
  std::vector<std::pair<int32_t, int>> seen;  // next token after an earlier copy of the suffix, count

  void find(const HypothesisHistory& history, int32_t node, int n) {
    blocked.clear();
    tokens.clear();
    seen.clear();
    for (int32_t x = node; x >= 0; x = history.parent(x)) tokens.push_back(history.token(x));
    std::reverse(tokens.begin(), tokens.end());
    const int64_t len = static_cast<int64_t>(tokens.size()), m = n - 1;
    if (len < m + 1) return;
    for (int64_t i = 0; i + m < len; ++i) {
      if (!std::equal(tokens.begin() + i, tokens.begin() + i + m, tokens.end() - m)) continue;
      const int32_t next = tokens[static_cast<size_t>(i + m)];
      auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == next; });
      if (it == seen.end()) {
        seen.push_back({next, 1});
      } else {
        ++it->second;
      }
    }
    for (const auto& [token, count] : seen)
      if (count >= 2) blocked.push_back(token);
  }
};

struct Live {
  int32_t node = -1;  // -1: nothing decoded yet
  double cost = 0.0, log_prob = 0.0;
  int32_t row = 0;  // its row in the current batch
};

struct Sentence {
  size_t index = 0;   // position in the input
  int slots = 0;      // beam slots left
  int64_t limit = 1;  // output length limit L (eos included)
  int64_t source_len = 0;
  std::vector<Live> live;
  std::vector<Hypothesis> finished;
};

// One selected expansion: the parent (index into its sentence's live list), the next token and
// its ensemble-weighted log-probability.
struct Expansion {
  size_t sentence;
  int parent;
  int32_t token;
  float log_prob;
};

// The step's per-row candidates: for every row its `k` best tokens by log-probability (plus the
// token bias: forbidden tokens are -inf), best first, and every row's eos log-probability.
struct RowCandidates {
  int64_t k = 0;
  std::vector<float> values;    // [N, k] ensemble-weighted log-probabilities
  std::vector<int32_t> tokens;  // [N, k]
  std::vector<float> eos;       // [N]
};

}  // namespace

std::vector<models::OutputSubset> BeamSearch::output_subsets(const std::vector<std::vector<int32_t>>& sources) const {
  std::vector<models::OutputSubset> out;
  if (!shortlist_) return out;
  const std::vector<int32_t> ids = shortlist_->candidates(sources);
  for (const auto* m : models_) out.push_back(m->output_subset(ids));
  return out;
}

BeamSearch::BeamSearch(std::vector<const models::Transformer*> models, std::shared_ptr<const Shortlist> shortlist)
    : models_(std::move(models)), shortlist_(std::move(shortlist)) {
  REALMT_CHECK(!models_.empty(), "beam search needs at least one model");
  check_ensemble_vocabularies(models_);
  vocab_size_ = models_[0]->config().target_vocab();
  REALMT_CHECK(!shortlist_ || shortlist_->target_vocab() == vocab_size_,
               "shortlist: made for a target vocabulary of {}, the model has {}", shortlist_->target_vocab(),
               vocab_size_);
}

std::vector<std::vector<Hypothesis>> BeamSearch::search(const std::vector<std::vector<int32_t>>& sources,
                                                        const SearchOptions& o) const {
  o.validate(models_.size());
  std::vector<std::vector<Hypothesis>> results(sources.size());
  if (sources.empty()) return results;
  const int64_t V = vocab_size_;
  const models::ModelConfig& config = models_[0]->config();
  const int64_t source_vocab = config.vocab_size;
  const int32_t pad = config.pad_id, unk = config.unk_id, eos = config.eos_id, start = config.decoder_start_id;
  const size_t M = models_.size();
  const std::vector<double> weights = o.weights.empty() ? std::vector<double>(M, 1.0) : o.weights;
  const bool want_alignment = o.alignment != AlignmentKind::kNone;

  // Source batch [B, S]: ids, eos, padding.
  const int64_t B = static_cast<int64_t>(sources.size());
  int64_t S = 0, max_limit = 1;
  for (const auto& s : sources) S = std::max<int64_t>(S, static_cast<int64_t>(s.size()) + 1);
  std::vector<int32_t> src(B * S, pad);
  std::vector<Sentence> sent(B);
  for (int64_t b = 0; b < B; ++b) {
    for (size_t j = 0; j < sources[b].size(); ++j) {
      const int32_t id = sources[b][j];
      REALMT_CHECK(id >= 0 && id < source_vocab, "source sentence {} holds id {} outside the vocabulary (size {})", b,
                   id, source_vocab);
      src[b * S + j] = id;
    }
    src[b * S + sources[b].size()] = eos;
    Sentence& s = sent[b];
    s.index = static_cast<size_t>(b);
    s.slots = o.beam_size;
    s.source_len = static_cast<int64_t>(sources[b].size()) + 1;
    s.limit = o.output_limit(s.source_len);
    max_limit = std::max(max_limit, s.limit);
    s.live.push_back(Live{-1, 0.0, 0.0, static_cast<int32_t>(b)});
  }
  const Tensor src_tensor = Tensor::from_vector(src, {B, S});
  // The states hold batch x beam rows; their key/value caches start with room for the expected
  // output (about the source length) and double beyond it.
  const int64_t capacity = std::min(max_limit, S + 8);
  std::vector<std::unique_ptr<DecoderSession>> sessions;
  for (const auto* m : models_)
    sessions.push_back(std::make_unique<DecoderSession>(*m, src_tensor, o.use_cache, B * o.beam_size, capacity));
  const Device dev = models_[0]->device();
  // One model with a positive weight in f32: the output layer and the selection are one fused op.
  const bool fused = M == 1 && weights[0] > 0;
  const std::vector<models::OutputSubset> subsets = output_subsets(sources);
  const auto subset = [&](size_t m) { return subsets.empty() ? nullptr : &subsets[m]; };
  const int64_t candidates = subsets.empty() ? V : static_cast<int64_t>(subsets[0].ids.size());

  // Token bias: pad, the decoder start (and <unk> unless allowed) -inf; the other before
  // min-length: eos too.
  std::vector<float> bias_host(V, 0.0f);
  bias_host[pad] = bias_host[start] = kNegInf;
  if (!o.allow_unk) bias_host[unk] = kNegInf;
  const Tensor bias = Tensor::from_vector(bias_host, {V}).to(dev);
  bias_host[eos] = kNegInf;
  const Tensor bias_no_eos = Tensor::from_vector(bias_host, {V}).to(dev);

  HypothesisHistory history(M, want_alignment);
  LoopGuard loop_guard;
  std::vector<size_t> active(B);  // sentences in the batch, in row order
  for (int64_t b = 0; b < B; ++b) active[b] = static_cast<size_t>(b);
  int64_t k_rows = 1;  // rows per active sentence
  std::vector<int32_t> last(B, start);
  for (int64_t t = 0; !active.empty(); ++t) {
    const int64_t N = static_cast<int64_t>(active.size()) * k_rows;
    std::vector<Tensor> hidden(M);
    for (size_t m = 0; m < M; ++m) hidden[m] = sessions[m]->step(last);

    // Per-row candidates: as many as the widest sentence may take (a full beam ranks 2 x beam).
    const bool full_beam = o.beam_mode == BeamMode::kFull;
    int top = 1;
    for (size_t idx : active) top = std::max(top, full_beam ? 2 * o.beam_size : sent[idx].slots);
    const bool fused_step = fused && hidden[0].dtype() == DType::kF32;
    RowCandidates cand;
    // With the loop guard, a few more: blocked tokens leave the beam full (the best `slots`
    // expansions over all rows are within each row's best `slots`, so more change nothing else).
    cand.k = std::min<int64_t>(o.repeat_ngram > 0 ? top + 4 : top, candidates);
    const Tensor& token_bias = t < o.min_length ? bias_no_eos : bias;
    std::vector<Tensor> logp(M);  // !fused: each model's log-probabilities [N, V]
    Tensor combined;
    if (fused_step) {
      const ops::LinearTopkResult r = models_[0]->output_topk(hidden[0], token_bias, {cand.k, eos}, subset(0));
      cand.values = r.values.to_vector<float>();
      cand.tokens = r.indices.to_vector<int32_t>();
      cand.eos = r.also.to_vector<float>();
      if (weights[0] != 1.0) {
        for (float& v : cand.values) v = static_cast<float>(v * weights[0]);
        for (float& v : cand.eos) v = static_cast<float>(v * weights[0]);
      }
    } else {
      for (size_t m = 0; m < M; ++m) {
        logp[m] = models_[m]->log_probs(hidden[m], subset(m));
        if (logp[m].dtype() != DType::kF32) logp[m] = ops::cast(logp[m], DType::kF32);
      }
      combined = logp[0];
      if (M > 1 || weights[0] != 1.0) {
        combined = ops::mul(logp[0], Tensor::full({1}, weights[0], DType::kF32, dev));
        for (size_t m = 1; m < M; ++m)
          combined = ops::add(combined, ops::mul(logp[m], Tensor::full({1}, weights[m], DType::kF32, dev)));
      }
      auto [v, i] = ops::topk(ops::add(combined, token_bias.reshape({1, V})), cand.k);
      cand.values = v.to_vector<float>();
      cand.tokens = i.to_vector<int32_t>();
      std::vector<int32_t> eos_flat(N);
      for (int64_t r = 0; r < N; ++r) eos_flat[r] = static_cast<int32_t>(r * V + eos);
      cand.eos = ops::index_select(combined.reshape({N * V}), 0,
                                   Tensor::from_vector(eos_flat, {N}).to(dev)).to_vector<float>();
    }

    // Selection: per sentence its best `slots` expansions over its rows' candidates (ranked by
    // cost + log-probability, ties to the lower row, then the lower token: ops::topk's order over
    // [rows x V]); at its length limit, eos for every hypothesis (Marian's rule: the best
    // expansions as any step, all of which finish).
    const bool marian_limit = o.length_rule == LengthRule::kMarian;
    std::vector<Expansion> chosen;
    for (size_t p = 0; p < active.size(); ++p) {
      const Sentence& s = sent[active[p]];
      if (t + 1 >= s.limit && !marian_limit) {
        for (size_t j = 0; j < s.live.size(); ++j)
          chosen.push_back({active[p], static_cast<int>(j), eos, cand.eos[s.live[j].row]});
        continue;
      }
      struct Option {
        double score;
        int64_t order;  // row within the sentence x V + token
        int parent;
        float log_prob;
        int32_t token;
      };
      std::vector<Option> options;
      for (size_t j = 0; j < s.live.size(); ++j) {
        const Live& h = s.live[j];
        const int64_t slot = h.row - static_cast<int64_t>(p) * k_rows;
        if (o.repeat_ngram > 0) loop_guard.find(history, h.node, o.repeat_ngram);
        const std::vector<int32_t>& blocked = loop_guard.blocked;
        for (int64_t c = 0; c < cand.k; ++c) {
          const float v = cand.values[h.row * cand.k + c];
          if (!std::isfinite(v)) break;  // forbidden tokens (and nothing better after them)
          const int32_t token = cand.tokens[h.row * cand.k + c];
          if (token != eos && std::find(blocked.begin(), blocked.end(), token) != blocked.end()) continue;
          options.push_back({h.cost + v, slot * V + token, static_cast<int>(j), v, token});
        }
      }
      if (options.empty() && o.repeat_ngram > 0) {
        // Every candidate would repeat a loop: the hypotheses end here (eos).
        for (size_t j = 0; j < s.live.size(); ++j) {
          const Live& h = s.live[j];
          const float v = cand.eos[h.row];
          if (!std::isfinite(v)) continue;
          const int64_t slot = h.row - static_cast<int64_t>(p) * k_rows;
          options.push_back({h.cost + v, slot * V + eos, static_cast<int>(j), v, eos});
        }
      }
      // Shrinking beam: the best `slots`. Full beam: of the best 2 x beam, the eos ones among the
      // first beam finish and the best beam others continue.
      const size_t width = full_beam ? static_cast<size_t>(o.beam_size) : static_cast<size_t>(s.slots);
      const size_t take = std::min<size_t>(full_beam ? 2 * width : width, options.size());
      std::partial_sort(options.begin(), options.begin() + take, options.end(), [](const Option& a, const Option& b) {
        return a.score > b.score || (a.score == b.score && a.order < b.order);
      });
      size_t live = 0;
      for (size_t c = 0; c < take; ++c) {
        if (full_beam && (options[c].token == eos ? c >= width : live++ >= width)) continue;
        chosen.push_back({active[p], options[c].parent, options[c].token, options[c].log_prob});
      }
    }

    // Per-model log-probabilities of the chosen expansions.
    std::vector<float> model_lp(chosen.size() * M);
    if (fused_step) {
      for (size_t c = 0; c < chosen.size(); ++c) model_lp[c] = static_cast<float>(chosen[c].log_prob / weights[0]);
    } else {
      std::vector<int32_t> flat(chosen.size());
      for (size_t c = 0; c < chosen.size(); ++c)
        flat[c] = sent[chosen[c].sentence].live[chosen[c].parent].row * static_cast<int32_t>(V) + chosen[c].token;
      const Tensor flat_t = Tensor::from_vector(flat, {static_cast<int64_t>(flat.size())}).to(dev);
      for (size_t m = 0; m < M; ++m) {
        const std::vector<float> g = ops::index_select(logp[m].reshape({N * V}), 0, flat_t).to_vector<float>();
        for (size_t c = 0; c < chosen.size(); ++c) model_lp[c * M + m] = g[c];
      }
    }
    std::vector<float> cross;
    int64_t cross_cols = 0;
    if (want_alignment) {
      cross = sessions[0]->cross_attention();
      cross_cols = sessions[0]->source_length();
    }

    // New hypotheses: one history node each.
    std::vector<std::vector<Live>> next(sent.size());
    for (size_t c = 0; c < chosen.size(); ++c) {
      const Expansion& e = chosen[c];
      Sentence& s = sent[e.sentence];
      Live h = s.live[e.parent];
      h.cost += static_cast<double>(e.log_prob) - o.word_penalty;
      h.log_prob += e.log_prob;
      const float* align = want_alignment ? cross.data() + h.row * cross_cols : nullptr;
      h.node = history.add(h.node, e.token, e.log_prob, model_lp.data() + c * M, align, s.source_len);
      if (e.token == eos || t + 1 >= s.limit) {  // eos, or cut at the limit (Marian's rule)
        const bool cut = e.token != eos;
        Hypothesis f = history.trace(h.node, !cut);
        const double n = static_cast<double>(f.tokens.size() + (cut ? 0 : 1));
        f.score = o.normalize == 0.0 ? h.cost : h.cost / std::pow(n, o.normalize);
        f.log_prob = h.log_prob;
        s.finished.push_back(std::move(f));
      } else {
        next[e.sentence].push_back(h);
      }
    }
    if (o.on_step) o.on_step(StepInfo{t, N});

    // Which sentences stay, and their rows in the next batch.
    std::vector<size_t> still;
    int64_t k_next = 0;
    for (size_t idx : active) {
      Sentence& s = sent[idx];
      const int finished_now = static_cast<int>(s.finished.size()) - (o.beam_size - s.slots);
      s.slots -= finished_now;  // a full beam: the hypotheses still to finish
      s.live = std::move(next[idx]);
      if (s.slots <= 0 || s.live.empty()) {
        std::stable_sort(s.finished.begin(), s.finished.end(),
                         [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
        if (static_cast<int>(s.finished.size()) > o.n_best) s.finished.resize(o.n_best);
        results[s.index] = std::move(s.finished);
        s.live.clear();
        continue;
      }
      still.push_back(idx);
      k_next = std::max<int64_t>(k_next, static_cast<int64_t>(s.live.size()));
    }
    if (still.empty()) break;
    std::vector<int32_t> rows(still.size() * k_next);
    last.assign(rows.size(), start);
    for (size_t p = 0; p < still.size(); ++p) {
      Sentence& s = sent[still[p]];
      for (int64_t j = 0; j < k_next; ++j) {
        const Live& h = s.live[std::min<size_t>(j, s.live.size() - 1)];  // dummies copy a live row
        rows[p * k_next + j] = h.row;
        last[p * k_next + j] = history.token(h.node);
      }
      for (size_t j = 0; j < s.live.size(); ++j) s.live[j].row = static_cast<int32_t>(p * k_next + j);
    }
    const bool same_sources = still == active && k_next == k_rows;
    bool identity = same_sources;
    for (size_t r = 0; identity && r < rows.size(); ++r) identity = rows[r] == static_cast<int32_t>(r);
    if (!identity)
      for (auto& session : sessions) session->reorder(rows, same_sources);
    active = std::move(still);
    k_rows = k_next;
  }
  return results;
}

}  // namespace realmt::search
