// BeamMode::kFull against a plain re-statement of Hugging Face's beam search (generate with
// early_stopping=True): every step ranks the best 2K expansions by cost, the eos ones among the
// first K finish, the best K others continue, and a sentence ends when K have finished; the
// decoder run from scratch over each prefix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ops/softmax.h"
#include "search/beam_search.h"
#include "tiny_model.h"

namespace realmt::search {
namespace {

struct Hyp {
  std::vector<int32_t> tokens;
  double cost = 0;
};

// Next-token log-probabilities after `prefix` (decoder start first), by a full forward pass.
std::vector<double> next_log_probs(const models::Transformer& m, const models::Encoded& enc,
                                   const std::vector<int32_t>& prefix) {
  const Tensor in = Tensor::from_vector(prefix, {1, static_cast<int64_t>(prefix.size())});
  const Tensor lp = ops::log_softmax(m.logits(m.decode(enc, in, {})).value());
  const int64_t v = m.config().target_vocab(), t = static_cast<int64_t>(prefix.size()) - 1;
  std::vector<double> out(static_cast<size_t>(v));
  for (int64_t j = 0; j < v; ++j) out[static_cast<size_t>(j)] = lp.at(t * v + j);
  return out;
}

// Best finished hypothesis (tokens without eos), scores normalised by length (eos counted).
std::vector<int32_t> reference_full_beam(const models::Transformer& m,
                                         const std::vector<int32_t>& source, int k, int64_t limit) {
  graph::NoGradGuard no_grad;
  std::vector<int32_t> src = source;
  src.push_back(3);
  const models::Encoded enc =
      m.encode(Tensor::from_vector(src, {1, static_cast<int64_t>(src.size())}), {});
  std::vector<Hyp> live{{{}, 0.0}};
  std::vector<std::pair<double, std::vector<int32_t>>> finished;
  for (int64_t t = 0; !live.empty() && static_cast<int>(finished.size()) < k; ++t) {
    struct Cand {
      double cost;
      size_t parent;
      int32_t token;
    };
    std::vector<Cand> cands;
    for (size_t h = 0; h < live.size(); ++h) {
      std::vector<int32_t> prefix{2};
      prefix.insert(prefix.end(), live[h].tokens.begin(), live[h].tokens.end());
      const std::vector<double> lp = next_log_probs(m, enc, prefix);
      for (int32_t v = 3; v < static_cast<int32_t>(lp.size()); ++v) {  // pad, unk and <s> never
        if (t + 1 >= limit && v != 3) continue;                        // at the limit: eos only
        cands.push_back({live[h].cost + lp[static_cast<size_t>(v)], h, v});
      }
    }
    std::stable_sort(cands.begin(), cands.end(),
                     [](const Cand& a, const Cand& b) { return a.cost > b.cost; });
    std::vector<Hyp> next;
    for (size_t c = 0; c < std::min<size_t>(cands.size(), 2 * static_cast<size_t>(k)); ++c) {
      Hyp h = live[cands[c].parent];
      h.cost = cands[c].cost;
      if (cands[c].token == 3) {
        if (c < static_cast<size_t>(k))
          finished.push_back({h.cost / static_cast<double>(h.tokens.size() + 1), h.tokens});
      } else if (static_cast<int>(next.size()) < k) {
        h.tokens.push_back(cands[c].token);
        next.push_back(h);
      }
    }
    live = std::move(next);
  }
  std::stable_sort(finished.begin(), finished.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  return finished.at(0).second;
}

TEST(FullBeam, MatchesHuggingFacesBeamSearch) {
  const auto model = test::tiny_model(46, 12);  // a seed on which the two beams often part
  const std::vector<std::vector<int32_t>> batch{
      {4, 5}, {6, 7, 8, 9}, {10}, {11, 4, 6},     {5, 5, 7, 9, 10},
      {7, 8}, {9, 9, 4},    {6},  {10, 11, 5, 4}, {8, 6, 4, 5, 11}};
  SearchOptions o;
  o.beam_size = 3;
  o.beam_mode = BeamMode::kFull;
  o.normalize = 1.0;
  o.repeat_ngram = 0;
  o.max_length_factor = 2;
  const auto got = BeamSearch({model.get()}).search(batch, o);
  SearchOptions shrink = o;
  shrink.beam_mode = BeamMode::kShrink;
  const auto marian = BeamSearch({model.get()}).search(batch, shrink);
  int differ = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const int64_t limit = o.output_limit(static_cast<int64_t>(batch[i].size()) + 1);
    EXPECT_EQ(got[i].at(0).tokens, reference_full_beam(*model, batch[i], o.beam_size, limit)) << i;
    differ += got[i].at(0).tokens != marian[i].at(0).tokens;
  }
  EXPECT_GT(differ, 0)
      << "the two beam modes decode these sentences alike: the test would not see kFull ignored";
}

}  // namespace
}  // namespace realmt::search
