// The beam search's token rules alone: the output layer's token bias (special tokens, eos before
// min-length), the candidates asked per row, the two length rules, and the loop guard against a
// brute-force count of n-grams.
#include "search/token_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace realmt::search {
namespace {

models::ModelConfig config_with_vocab(int64_t v) {
  models::ModelConfig c;
  c.vocab_size = v;
  return c;
}

std::vector<bool> forbidden(const Tensor& bias) {
  std::vector<bool> out;
  for (float b : bias.to_vector<float>()) out.push_back(std::isinf(b) && b < 0);
  return out;
}

TEST(TokenRules, BiasForbidsPadStartAndUnkAlwaysAndEosBeforeMinLength) {
  models::ModelConfig c = config_with_vocab(8);  // pad 0, unk 1, <s> 2, eos 3
  SearchOptions o;
  o.min_length = 2;
  const TokenRules rules(c, o, Device::cpu());
  const std::vector<bool> later{true, true, true, false, false, false, false, false};
  std::vector<bool> early = later;
  early[3] = true;
  EXPECT_EQ(forbidden(rules.bias(0)), early);
  EXPECT_EQ(forbidden(rules.bias(1)), early);
  EXPECT_EQ(forbidden(rules.bias(2)), later);
  EXPECT_EQ(forbidden(rules.bias(50)), later);
  for (float b : rules.bias(2).to_vector<float>()) EXPECT_TRUE(b == 0.0f || std::isinf(b));
  o.allow_unk = true;
  EXPECT_EQ(forbidden(TokenRules(c, o, Device::cpu()).bias(5)),
            (std::vector<bool>{true, false, true, false, false, false, false, false}));
}

TEST(TokenRules, SpecialIdsComeFromTheModelsConfig) {
  models::ModelConfig c = config_with_vocab(6);
  c.pad_id = 5;
  c.unk_id = 4;
  c.decoder_start_id = 0;
  c.eos_id = 1;
  c.target_vocab_size = 7;  // the output side's vocabulary
  SearchOptions o;
  o.min_length = 1;
  const TokenRules rules(c, o, Device::cpu());
  EXPECT_EQ(rules.eos(), 1);
  EXPECT_EQ(rules.vocab_size(), 7);
  EXPECT_EQ(forbidden(rules.bias(0)),
            (std::vector<bool>{true, true, false, false, true, true, false}));
  EXPECT_EQ(forbidden(rules.bias(1)),
            (std::vector<bool>{true, false, false, false, true, true, false}));
}

TEST(TokenRules, CandidatesLeaveRoomForTheLoopGuardWithinTheVocabulary) {
  const models::ModelConfig c = config_with_vocab(10);
  SearchOptions o;
  o.repeat_ngram = 4;
  const TokenRules guarded(c, o, Device::cpu());
  EXPECT_EQ(guarded.candidates(1), 5);
  EXPECT_EQ(guarded.candidates(6), 10);
  EXPECT_EQ(guarded.candidates(8), 10);
  o.repeat_ngram = 0;
  const TokenRules plain(c, o, Device::cpu());
  EXPECT_EQ(plain.candidates(1), 1);
  EXPECT_EQ(plain.candidates(12), 10);
}

TEST(TokenRules, RealmtsRuleForcesEosAtTheLimitAndMariansDoesNot) {
  const models::ModelConfig c = config_with_vocab(8);
  SearchOptions o;
  const TokenRules realmt(c, o, Device::cpu());
  EXPECT_FALSE(realmt.forces_eos(2, 4));
  EXPECT_TRUE(realmt.forces_eos(3, 4));  // the 4th token (t = 3) of a 4-token limit
  EXPECT_TRUE(realmt.forces_eos(0, 1));
  o.length_rule = LengthRule::kMarian;
  const TokenRules marian(c, o, Device::cpu());
  EXPECT_FALSE(marian.forces_eos(3, 4));
  EXPECT_FALSE(marian.forces_eos(0, 1));
  EXPECT_FALSE(TokenRules::reached_limit(2, 4));
  EXPECT_TRUE(TokenRules::reached_limit(3, 4));
}

// A chain of history nodes for `tokens`; returns the last node (-1 for none).
int32_t chain(HypothesisHistory& h, const std::vector<int32_t>& tokens) {
  int32_t node = -1;
  const float lp = 0.0f;
  for (int32_t t : tokens) node = h.add(node, t, lp, &lp, nullptr, 0);
  return node;
}

TEST(LoopGuard, BlocksTheTokenThatWouldMakeAnNgramOccurAThirdTime) {
  HypothesisHistory h(1, false);
  LoopGuard guard;
  guard.find(h, chain(h, {4, 5, 6, 4, 5, 6}), 4);
  EXPECT_TRUE(guard.blocked().empty()) << "4 5 6 4 has occurred once";
  guard.find(h, chain(h, {4, 5, 6, 4, 5, 6, 4, 5, 6}), 4);
  EXPECT_EQ(guard.blocked(), std::vector<int32_t>{4});
  EXPECT_TRUE(guard.blocks(4));
  EXPECT_FALSE(guard.blocks(5));
  guard.find(h, chain(h, {4, 5, 6, 4, 5, 6, 4, 5, 6}), 5);
  EXPECT_TRUE(guard.blocked().empty()) << "5-grams: 4 5 6 4 5 twice would be allowed";
  guard.find(h, chain(h, {7, 7}), 2);
  EXPECT_TRUE(guard.blocked().empty());
  guard.find(h, chain(h, {7, 7, 7}), 2);
  EXPECT_EQ(guard.blocked(), std::vector<int32_t>{7});
  guard.find(h, -1, 4);
  EXPECT_TRUE(guard.blocked().empty()) << "nothing decoded yet";
}

// x is blocked exactly when the n-gram (last n - 1 tokens, x) would occur three times or more.
TEST(LoopGuard, AgreesWithCountingNgramsOnRandomHypotheses) {
  std::mt19937 rng(7);
  HypothesisHistory h(1, false);
  LoopGuard guard;
  int blocked_seen = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 3);
    std::vector<int32_t> tokens(rng() % 24);
    for (auto& t : tokens) t = 4 + static_cast<int32_t>(rng() % 3);
    guard.find(h, chain(h, tokens), n);
    for (int32_t x = 4; x < 7; ++x) {
      std::vector<int32_t> y = tokens;
      y.push_back(x);
      int count = 0;
      if (static_cast<int>(y.size()) >= n)
        for (size_t i = 0; i + n <= y.size(); ++i)
          count += std::equal(y.begin() + i, y.begin() + i + n, y.end() - n);
      EXPECT_EQ(guard.blocks(x), count >= 3) << "trial " << trial << " n " << n << " token " << x;
      blocked_seen += guard.blocks(x);
    }
  }
  EXPECT_GT(blocked_seen, 50);
}

}  // namespace
}  // namespace realmt::search
