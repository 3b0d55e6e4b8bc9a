#include "search/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "data/vocab.h"
#include "ops/cast.h"
#include "ops/elementwise.h"
#include "ops/index_select.h"
#include "ops/topk.h"
#include "search/decoder_session.h"

namespace realmt::search {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// A hypothesis still being extended.
struct Live {
  std::vector<int32_t> tokens;
  double cost = 0.0, log_prob = 0.0;
  std::vector<double> model_log_probs;
  std::vector<float> token_log_probs;
  std::vector<std::vector<float>> alignment;
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

// One selected expansion: the parent's row and the next token.
struct Expansion {
  size_t sentence;
  int parent;  // index into the sentence's live list
  int32_t token;
  int32_t flat;  // row * V + token
};

}  // namespace

BeamSearch::BeamSearch(std::vector<const models::Transformer*> models)
    : models_(std::move(models)) {
  REALMT_CHECK(!models_.empty(), "beam search needs at least one model");
  vocab_size_ = models_[0]->config().vocab_size;
  for (size_t m = 1; m < models_.size(); ++m)
    REALMT_CHECK(models_[m]->config().vocab_size == vocab_size_,
                 "models: ensemble member {} has a vocabulary of {} pieces, member 0 has {}; an "
                 "ensemble needs one "
                 "shared vocabulary",
                 m, models_[m]->config().vocab_size, vocab_size_);
}

std::vector<std::vector<Hypothesis>> BeamSearch::search(
    const std::vector<std::vector<int32_t>>& sources, const SearchOptions& o) const {
  o.validate(models_.size());
  std::vector<std::vector<Hypothesis>> results(sources.size());
  if (sources.empty()) return results;
  const int64_t V = vocab_size_;
  const size_t M = models_.size();
  std::vector<double> weights = o.weights.empty() ? std::vector<double>(M, 1.0) : o.weights;

  // Source batch [B, S]: ids, eos, padding.
  const int64_t B = static_cast<int64_t>(sources.size());
  int64_t S = 0;
  for (const auto& s : sources) S = std::max<int64_t>(S, static_cast<int64_t>(s.size()) + 1);
  std::vector<int32_t> src(B * S, data::kPadId);
  std::vector<Sentence> sent(B);
  for (int64_t b = 0; b < B; ++b) {
    for (size_t j = 0; j < sources[b].size(); ++j) {
      const int32_t id = sources[b][j];
      REALMT_CHECK(id >= 0 && id < V,
                   "source sentence {} holds id {} outside the vocabulary (size {})", b, id, V);
      src[b * S + j] = id;
    }
    src[b * S + sources[b].size()] = data::kEosId;
    Sentence& s = sent[b];
    s.index = static_cast<size_t>(b);
    s.slots = o.beam_size;
    s.source_len = static_cast<int64_t>(sources[b].size()) + 1;
    s.limit = o.output_limit(s.source_len);
    Live start;
    start.model_log_probs.assign(M, 0.0);
    start.row = static_cast<int32_t>(b);
    s.live.push_back(std::move(start));
  }
  const Tensor src_tensor = Tensor::from_vector(src, {B, S});
  std::vector<std::unique_ptr<DecoderSession>> sessions;
  for (const auto* m : models_)
    sessions.push_back(std::make_unique<DecoderSession>(*m, src_tensor, o.use_cache));
  const bool want_alignment = o.alignment != AlignmentKind::kNone;

  // Token bias: forbidden ids -inf, word penalty on the others.
  std::vector<float> bias_host(V, static_cast<float>(-o.word_penalty));
  bias_host[data::kPadId] = bias_host[data::kBosId] = kNegInf;
  if (!o.allow_unk && V > data::kUnkId) bias_host[data::kUnkId] = kNegInf;
  Tensor bias, bias_no_eos;  // the latter before min_length

  std::vector<size_t> active(B);  // sentences in the batch, in row order
  for (int64_t b = 0; b < B; ++b) active[b] = static_cast<size_t>(b);
  int64_t k_rows = 1;  // rows per active sentence
  std::vector<int32_t> last(B, data::kBosId);
  for (int64_t t = 0; !active.empty(); ++t) {
    const int64_t N = static_cast<int64_t>(active.size()) * k_rows;
    std::vector<Tensor> logp(M);
    for (size_t m = 0; m < M; ++m) {
      logp[m] = sessions[m]->step(last);
      if (logp[m].dtype() != DType::kF32) logp[m] = ops::cast(logp[m], DType::kF32);
    }
    const Device dev = logp[0].device();
    Tensor combined = logp[0];
    if (M > 1 || weights[0] != 1.0) {
      combined = ops::mul(logp[0], Tensor::full({1}, weights[0], DType::kF32, dev));
      for (size_t m = 1; m < M; ++m)
        combined =
            ops::add(combined, ops::mul(logp[m], Tensor::full({1}, weights[m], DType::kF32, dev)));
    }
    if (!bias.defined()) {
      bias = Tensor::from_vector(bias_host, {1, V}).to(dev);
      bias_host[data::kEosId] = kNegInf;
      bias_no_eos = Tensor::from_vector(bias_host, {1, V}).to(dev);
    }

    // Selection: per sentence its best `slots` expansions (or, at its length limit, eos only).
    std::vector<Expansion> chosen;
    int top = 0;
    bool any_free = false;
    for (size_t p = 0; p < active.size(); ++p) {
      const Sentence& s = sent[active[p]];
      if (t + 1 < s.limit) {
        top = std::max(top, s.slots);
        any_free = true;
      }
    }
    std::vector<float> values;
    std::vector<int32_t> indices;
    top = static_cast<int>(std::min<int64_t>(top, k_rows * V));
    if (any_free) {
      std::vector<float> cost(N, kNegInf);  // dummy rows stay -inf
      for (size_t p = 0; p < active.size(); ++p)
        for (const Live& h : sent[active[p]].live) cost[h.row] = static_cast<float>(h.cost);
      const Tensor& token_bias = t < o.min_length ? bias_no_eos : bias;
      const Tensor scores =
          ops::add(ops::add(combined, token_bias), Tensor::from_vector(cost, {N, 1}).to(dev));
      auto [v, i] =
          ops::topk(scores.reshape({static_cast<int64_t>(active.size()), k_rows * V}), top);
      values = v.to_vector<float>();
      indices = i.to_vector<int32_t>();
    }
    for (size_t p = 0; p < active.size(); ++p) {
      const Sentence& s = sent[active[p]];
      if (t + 1 >= s.limit) {
        for (size_t j = 0; j < s.live.size(); ++j)
          chosen.push_back({active[p], static_cast<int>(j), data::kEosId,
                            static_cast<int32_t>(s.live[j].row * V + data::kEosId)});
        continue;
      }
      for (int c = 0; c < s.slots && c < top; ++c) {
        if (!std::isfinite(values[p * top + c])) break;
        const int32_t within = indices[p * top + c];  // slot * V + token
        const int64_t row = static_cast<int64_t>(p) * k_rows + within / V;
        const int32_t token = static_cast<int32_t>(within % V);
        int parent = -1;
        for (size_t j = 0; j < s.live.size(); ++j)
          if (s.live[j].row == row) parent = static_cast<int>(j);
        REALMT_ASSERT(parent >= 0, "top-k chose a dummy row {}", row);
        chosen.push_back({active[p], parent, token, static_cast<int32_t>(row * V + token)});
      }
    }

    // Exact per-token log-probabilities of the chosen expansions (combined and per model).
    std::vector<int32_t> flat(chosen.size());
    for (size_t c = 0; c < chosen.size(); ++c) flat[c] = chosen[c].flat;
    const Tensor flat_t = Tensor::from_vector(flat, {static_cast<int64_t>(flat.size())}).to(dev);
    auto gather = [&](const Tensor& x) {
      return ops::index_select(x.reshape({N * V}), 0, flat_t).to_vector<float>();
    };
    const std::vector<float> lp = gather(combined);
    std::vector<std::vector<float>> lp_model(M);
    for (size_t m = 0; m < M; ++m) lp_model[m] = M == 1 ? lp : gather(logp[m]);
    if (M == 1 && weights[0] != 1.0)
      for (float& x : lp_model[0]) x = static_cast<float>(x / weights[0]);
    std::vector<float> cross;
    int64_t cross_cols = 0;
    if (want_alignment) {
      cross = sessions[0]->cross_attention();
      cross_cols = sessions[0]->source_length();
    }

    // New hypotheses.
    std::vector<std::vector<Live>> next(sent.size());
    for (size_t c = 0; c < chosen.size(); ++c) {
      const Expansion& e = chosen[c];
      Sentence& s = sent[e.sentence];
      Live h = s.live[e.parent];  // copies the parent's history
      const int32_t parent_row = h.row;
      h.cost += static_cast<double>(lp[c]) - o.word_penalty;
      h.log_prob += lp[c];
      for (size_t m = 0; m < M; ++m) h.model_log_probs[m] += lp_model[m][c];
      h.token_log_probs.push_back(lp[c]);
      if (want_alignment)
        h.alignment.emplace_back(cross.begin() + parent_row * cross_cols,
                                 cross.begin() + parent_row * cross_cols + s.source_len);
      if (e.token == data::kEosId) {
        Hypothesis f;
        const double n = static_cast<double>(h.tokens.size() + 1);
        f.score = o.normalize == 0.0 ? h.cost : h.cost / std::pow(n, o.normalize);
        f.tokens = std::move(h.tokens);
        f.log_prob = h.log_prob;
        f.model_log_probs = std::move(h.model_log_probs);
        f.token_log_probs = std::move(h.token_log_probs);
        f.alignment = std::move(h.alignment);
        s.finished.push_back(std::move(f));
      } else {
        h.tokens.push_back(e.token);
        next[e.sentence].push_back(std::move(h));
      }
    }

    // Which sentences stay, and their rows in the next batch.
    std::vector<size_t> still;
    int64_t k_next = 0;
    for (size_t idx : active) {
      Sentence& s = sent[idx];
      const int finished_now = static_cast<int>(s.finished.size()) - (o.beam_size - s.slots);
      s.slots -= finished_now;
      s.live = std::move(next[idx]);
      if (s.slots <= 0 || s.live.empty()) {
        std::stable_sort(
            s.finished.begin(), s.finished.end(),
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
    last.assign(rows.size(), data::kBosId);
    for (size_t p = 0; p < still.size(); ++p) {
      Sentence& s = sent[still[p]];
      for (int64_t j = 0; j < k_next; ++j) {
        const Live& h = s.live[std::min<size_t>(j, s.live.size() - 1)];  // dummies copy a live row
        rows[p * k_next + j] = h.row;
        last[p * k_next + j] = h.tokens.back();
      }
      for (size_t j = 0; j < s.live.size(); ++j)
        s.live[j].row = static_cast<int32_t>(p * k_next + j);
    }
    const bool same_sources = still == active && k_next == k_rows;
    bool identity = same_sources;
    for (size_t r = 0; identity && r < rows.size(); ++r)
      identity = rows[r] == static_cast<int32_t>(r);
    if (!identity)
      for (auto& session : sessions) session->reorder(rows, same_sources);
    active = std::move(still);
    k_rows = k_next;
  }
  return results;
}

}  // namespace realmt::search
