// The beam search's selection alone, on hand-made candidates: the ranking (score, then row,
// then token), the shrinking beam's best `slots`, the full beam's 2 x beam with its eos rule,
// the loop guard's blocked tokens and its eos fallback, and realmt's forced eos at the limit.
#include "search/beam_selection.h"

#include <gtest/gtest.h>

#include <limits>

namespace realmt::search {
namespace {

constexpr int32_t kEos = 3;
constexpr float kInf = std::numeric_limits<float>::infinity();

models::ModelConfig config() {
  models::ModelConfig c;
  c.vocab_size = 10;
  return c;
}

TokenRules rules(int repeat_ngram, LengthRule rule = LengthRule::kRealmt) {
  SearchOptions o;
  o.repeat_ngram = repeat_ngram;
  o.length_rule = rule;
  return TokenRules(config(), o, Device::cpu());
}

// Rows 0 and 1 belong to another sentence; the one under test has rows 2 and 3 (block 1 of 2).
RowCandidates four_rows(float eos_row3) {
  RowCandidates c;
  c.k = 3;
  c.tokens = {4, 5, 6, 4, 5, 6, 5, 6, 4, 7, 5, kEos};
  c.values = {-9, -9, -9, -9, -9, -9, -0.5f, -1.0f, -2.0f, 0.0f, -0.5f, eos_row3};
  c.eos = {-9, -9, -4.0f, eos_row3};
  return c;
}

const std::vector<Live> kLive{{-1, -1.0, 0.0, 2}, {-1, -1.5, 0.0, 3}};

using Picked = std::vector<std::pair<int, int32_t>>;  // parent, token

Picked picked(const std::vector<Option>& chosen) {
  Picked out;
  for (const Option& o : chosen) out.push_back({o.parent, o.token});
  return out;
}

std::vector<Option> take(const SelectionStrategy& s, const RowCandidates& cand, int slots) {
  HypothesisHistory history(1, false);
  LoopGuard guard;
  std::vector<Option> options = gather_options(kLive, 2, cand, rules(0), history, guard), chosen;
  s.take(options, slots, kEos, chosen);
  return chosen;
}

TEST(BeamSelection, ShrinkingBeamTakesTheBestSlotsTiesToTheLowerRowThenToken) {
  // Scores: parent 0: 5 -1.5, 6 -2.0, 4 -3.0; parent 1: 7 -1.5, 5 -2.0, eos -2.1.
  const RowCandidates cand = four_rows(-0.6f);
  const std::vector<Option> three = take(ShrinkingBeam(), cand, 3);
  EXPECT_EQ(picked(three), (Picked{{0, 5}, {1, 7}, {0, 6}}));
  EXPECT_EQ(three[1].score, -1.5);
  EXPECT_EQ(three[1].log_prob, 0.0f);
  EXPECT_EQ(three[1].order, 1 * 10 + 7) << "row within the sentence x V + token";
  EXPECT_EQ(picked(take(ShrinkingBeam(), cand, 1)), (Picked{{0, 5}})) << "beam 1: greedy";
  EXPECT_EQ(take(ShrinkingBeam(), cand, 20).size(), 6u) << "at most every option";
}

TEST(BeamSelection, FullBeamFinishesEosOnlyAmongTheFirstBeamAndKeepsTheBeamFull) {
  // eos of parent 1 at -1.7: third by score.
  const RowCandidates cand = four_rows(-0.2f);
  EXPECT_EQ(picked(take(FullBeam(2), cand, 1)), (Picked{{0, 5}, {1, 7}}))
      << "eos third, outside the first beam of 2: dropped, and 2 continue";
  EXPECT_EQ(picked(take(FullBeam(3), cand, 1)), (Picked{{0, 5}, {1, 7}, {1, kEos}, {0, 6}}))
      << "eos within the first 3 finishes, and 3 others continue whatever the slots left";
  EXPECT_EQ(picked(take(ShrinkingBeam(), cand, 3)), (Picked{{0, 5}, {1, 7}, {1, kEos}}));
}

// A chain of history nodes for `tokens`; returns the last node.
int32_t chain(HypothesisHistory& h, const std::vector<int32_t>& tokens) {
  int32_t node = -1;
  const float lp = 0.0f;
  for (int32_t t : tokens) node = h.add(node, t, lp, &lp, nullptr, 0);
  return node;
}

TEST(BeamSelection, GatheringSkipsBlockedTokensButNeverEosAndStopsAtForbiddenOnes) {
  HypothesisHistory history(1, false);
  const int32_t loop = chain(history, {4, 5, 6, 4, 5, 6, 4, 5, 6});  // blocks 4 (4-grams)
  const int32_t eos_loop =
      chain(history, {kEos, 4, kEos, 4, kEos, 4});  // blocks eos (bigrams: 4 eos)
  RowCandidates cand;
  cand.k = 3;
  cand.tokens = {4, kEos, 5, 6, 4, 5};
  cand.values = {-0.1f, -0.2f, -0.3f, -0.4f, -kInf, -kInf};
  cand.eos = {-0.2f, -5.0f};
  LoopGuard guard;
  const std::vector<Live> live{{loop, -1.0, 0.0, 0}, {loop, -2.0, 0.0, 1}};
  const std::vector<Option> got = gather_options(live, 0, cand, rules(4), history, guard);
  EXPECT_EQ(picked(got), (Picked{{0, kEos}, {0, 5}, {1, 6}})) << "4 blocked; -inf ends a row";
  EXPECT_EQ(got[1].score, -1.0 + static_cast<double>(-0.3f));
  EXPECT_EQ(got[2].order, 1 * 10 + 6);
  EXPECT_EQ(picked(gather_options(live, 0, cand, rules(0), history, guard)),
            (Picked{{0, 4}, {0, kEos}, {0, 5}, {1, 6}}))
      << "no loop guard";
  const std::vector<Live> eos_live{{eos_loop, 0.0, 0.0, 0}};
  EXPECT_EQ(picked(gather_options(eos_live, 0, cand, rules(2), history, guard)),
            (Picked{{0, 4}, {0, kEos}, {0, 5}}))
      << "eos may always end a hypothesis, blocked or not";
  EXPECT_EQ(guard.blocked(), std::vector<int32_t>{kEos});
}

TEST(BeamSelection, WhenTheGuardBlocksEveryCandidateTheHypothesesEnd) {
  HypothesisHistory history(1, false);
  const int32_t loop = chain(history, {4, 5, 6, 4, 5, 6, 4, 5, 6});
  RowCandidates cand;  // rows 3 to 5: every candidate is the blocked 4
  cand.k = 1;
  cand.tokens = {4, 4, 4, 4, 4, 4};
  cand.values = {-9, -9, -9, -0.1f, -0.2f, -0.3f};
  cand.eos = {-9, -9, -9, -2.0f, -kInf, -3.0f};  // row 4: eos forbidden (before min-length)
  const std::vector<Live> live{{loop, -1.0, 0.0, 3}, {loop, -1.0, 0.0, 4}, {loop, -1.0, 0.0, 5}};
  LoopGuard guard;
  const std::vector<Option> got = gather_options(live, 3, cand, rules(4), history, guard);
  EXPECT_EQ(picked(got), (Picked{{0, kEos}, {2, kEos}}));
  EXPECT_EQ(got[1].score, -4.0);
  EXPECT_EQ(got[1].order, 2 * 10 + kEos);
}

TEST(BeamSelection, RealmtsLimitGivesEveryHypothesisEosMariansSelectsAsUsual) {
  SearchOptions o;
  o.beam_size = 2;
  o.max_length = 1;  // the first token is the last
  const BeamState state({{4, 5}, {6}}, o, config(), 1);
  RowCandidates cand;
  cand.k = 2;
  cand.tokens = {5, 6, 7, 4};
  cand.values = {-0.5f, -0.7f, -0.1f, -0.2f};
  cand.eos = {-3.0f, -4.0f};
  LoopGuard guard;
  const ShrinkingBeam shrink;
  const auto forced = select_expansions(state, cand, rules(4), shrink, guard, 0);
  ASSERT_EQ(forced.size(), 2u);
  EXPECT_EQ(forced[0].token, kEos);
  EXPECT_EQ(forced[0].log_prob, -3.0f);
  EXPECT_EQ(forced[1].sentence, 1u);
  EXPECT_EQ(forced[1].log_prob, -4.0f);
  const auto marian =
      select_expansions(state, cand, rules(4, LengthRule::kMarian), shrink, guard, 0);
  ASSERT_EQ(marian.size(), 4u);
  EXPECT_EQ(marian[0].token, 5);
  EXPECT_EQ(marian[1].token, 6);
  EXPECT_EQ(marian[2].sentence, 1u);
  EXPECT_EQ(marian[2].token, 7);
  EXPECT_EQ(marian[3].log_prob, -0.2f);
}

TEST(BeamSelection, StepCandidatesFollowTheModeAndTheGuard) {
  SearchOptions o;
  o.beam_size = 3;
  const BeamState state({{4}, {5, 6}}, o, config(), 1);
  EXPECT_EQ(step_candidates(state, ShrinkingBeam(), rules(0)), 3);
  EXPECT_EQ(step_candidates(state, ShrinkingBeam(), rules(4)), 7);
  EXPECT_EQ(step_candidates(state, FullBeam(3), rules(0)), 6);
  EXPECT_EQ(step_candidates(state, FullBeam(3), rules(4)), 10) << "capped at the vocabulary";
  o.beam_mode = BeamMode::kFull;
  EXPECT_EQ(make_selection(o)->row_candidates(1), 6);
  o.beam_mode = BeamMode::kShrink;
  EXPECT_EQ(make_selection(o)->row_candidates(1), 1);
}

}  // namespace
}  // namespace realmt::search
