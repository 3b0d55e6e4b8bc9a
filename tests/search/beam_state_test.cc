// The beam search's state alone, stepped by hand: the source batch and limits, scores of
// finished hypotheses (word penalty, normalisation, Marian's cut), slots, sentences leaving with
// their n-best, and the row mapping the decoder follows (blocks, dummies, beam moves, identity).
#include "search/beam_state.h"

#include <gtest/gtest.h>

#include <cmath>

namespace realmt::search {
namespace {

constexpr int32_t kEos = 3;

models::ModelConfig config() {
  models::ModelConfig c;
  c.vocab_size = 10;
  return c;
}

// Model log-probabilities for `n` expansions of a one-model search: the weighted ones.
std::vector<float> lps(const std::vector<Expansion>& chosen) {
  std::vector<float> out;
  for (const Expansion& e : chosen) out.push_back(e.log_prob);
  return out;
}

void step(BeamState& s, const std::vector<Expansion>& chosen, int64_t t) {
  s.extend(chosen, lps(chosen), {}, 0, t);
}

TEST(BeamState, SourceBatchLimitsAndFirstRows) {
  SearchOptions o;
  o.max_length_factor = 1.5;
  const BeamState s({{4, 5, 6}, {}, {7}}, o, config(), 1);
  EXPECT_EQ(s.source_width(), 4);
  EXPECT_EQ(s.source_batch().to_vector<int32_t>(),
            (std::vector<int32_t>{4, 5, 6, kEos, kEos, 0, 0, 0, 7, kEos, 0, 0}));
  EXPECT_EQ(s.sentence(0).limit, 6);  // floor(1.5 x 4)
  EXPECT_EQ(s.sentence(1).limit, 1);
  EXPECT_EQ(s.sentence(2).limit, 3);
  EXPECT_EQ(s.max_limit(), 6);
  EXPECT_EQ(s.rows(), 3);
  EXPECT_EQ(s.last_tokens(), (std::vector<int32_t>{2, 2, 2})) << "the decoder start";
  EXPECT_EQ(s.sentence(2).live.at(0).row, 2);
  EXPECT_EQ(s.sentence(2).slots, o.beam_size);
}

TEST(BeamState, RefusesIdsOutsideTheVocabularyNamingTheSentence) {
  try {
    BeamState({{4}, {4, 10}}, SearchOptions{}, config(), 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("source sentence 1 holds id 10"), std::string::npos)
        << e.what();
  }
}

TEST(BeamState, RowsFollowTheSurvivorsWithDummiesAndSentencesLeaveWithTheirNBest) {
  SearchOptions o;
  o.beam_size = o.n_best = 2;
  BeamState s({{4, 5}, {6}}, o, config(), 1);
  // Step 0: sentence 0 continues twice; sentence 1 finishes one hypothesis and continues one.
  step(s, {{0, 0, 4, -0.25f}, {0, 0, 5, -0.5f}, {1, 0, 6, -1.0f}, {1, 0, kEos, -2.0f}}, 0);
  RowMove m = s.advance();
  EXPECT_EQ(m.rows, (std::vector<int32_t>{0, 0, 1, 1}))
      << "sentence 1's second row is a dummy copy";
  EXPECT_FALSE(m.identity);
  EXPECT_FALSE(m.same_sources) << "the rows per sentence changed";
  EXPECT_EQ(s.last_tokens(), (std::vector<int32_t>{4, 5, 6, 6}));
  EXPECT_EQ(s.rows_per_sentence(), 2);
  EXPECT_EQ(s.sentence(1).slots, 1);
  EXPECT_EQ(s.sentence(1).live.at(0).row, 2);
  ASSERT_EQ(s.sentence(1).finished.size(), 1u);
  EXPECT_EQ(s.sentence(1).finished[0].score, -2.0);

  // rows_of: the parents' rows in the batch just decoded.
  const std::vector<Expansion> swap{{0, 1, 6, -0.125f}, {0, 0, 6, -0.5f}, {1, 0, 4, -1.0f}};
  const std::vector<RowToken> rows = s.rows_of(swap);
  EXPECT_EQ(rows[0].row, 1);
  EXPECT_EQ(rows[2].row, 2);
  // Step 1: sentence 0's hypotheses swap rows (a beam move); sentence 1 goes on.
  step(s, swap, 1);
  m = s.advance();
  EXPECT_EQ(m.rows, (std::vector<int32_t>{1, 0, 2, 2}));
  EXPECT_TRUE(m.same_sources);
  EXPECT_FALSE(m.identity);
  // Step 2: every hypothesis extends its own row (sentence 1's dummy copies its live row again).
  step(s, {{0, 0, 4, -0.5f}, {0, 1, 4, -0.5f}, {1, 0, 5, -0.5f}}, 2);
  m = s.advance();
  EXPECT_EQ(m.rows, (std::vector<int32_t>{0, 1, 2, 2}));
  EXPECT_TRUE(m.same_sources);
  // Step 3: sentence 1 finishes its last slot and leaves; sentence 0's second hypothesis moves up.
  step(s, {{0, 1, 6, -0.5f}, {0, 0, kEos, -4.0f}, {1, 0, kEos, -0.25f}}, 3);
  m = s.advance();
  EXPECT_EQ(s.active(), std::vector<size_t>{0});
  EXPECT_EQ(m.rows, (std::vector<int32_t>{1}));
  EXPECT_FALSE(m.same_sources);
  // Step 4: sentence 0 finishes.
  step(s, {{0, 0, kEos, -0.25f}}, 4);
  m = s.advance();
  EXPECT_TRUE(s.done());
  const auto results = s.take_results();
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(results[0].size(), 2u);
  EXPECT_EQ(results[0][0].tokens,
            (std::vector<int32_t>{4, 6, 4, 6}));  // -0.25 -0.5 -0.5 -0.5 -0.25
  EXPECT_EQ(results[0][0].score, -2.0);
  EXPECT_EQ(results[0][1].tokens, (std::vector<int32_t>{5, 6, 4}));  // -0.5 -0.125 -0.5 -4
  EXPECT_EQ(results[0][1].score, -5.125);
  ASSERT_EQ(results[1].size(), 2u);
  EXPECT_EQ(results[1][0].tokens, std::vector<int32_t>{});  // finished first, at -2
  EXPECT_EQ(results[1][0].score, -2.0);
  EXPECT_EQ(results[1][1].tokens, (std::vector<int32_t>{6, 4, 5}));
  EXPECT_EQ(results[1][1].score, -2.75);
  EXPECT_EQ(results[1][1].token_log_probs, (std::vector<float>{-1.0f, -1.0f, -0.5f, -0.25f}));
}

TEST(BeamState, NothingMovesWhenEveryHypothesisExtendsItsOwnRow) {
  SearchOptions o;
  o.beam_size = 2;
  BeamState s({{4}}, o, config(), 1);
  step(s, {{0, 0, 5, -0.5f}, {0, 0, 6, -0.75f}}, 0);
  EXPECT_EQ(s.advance().rows, (std::vector<int32_t>{0, 0}));
  step(s, {{0, 0, 5, -0.5f}, {0, 1, 4, -0.5f}}, 1);
  const RowMove m = s.advance();
  EXPECT_TRUE(m.identity);
  EXPECT_TRUE(m.same_sources);
  step(s, {{0, 1, 4, -0.25f}, {0, 0, 4, -0.5f}}, 2);
  EXPECT_FALSE(s.advance().identity) << "a swap";
}

TEST(BeamState, ASentenceLeavingIsAMoveEvenWhenTheRowsKeepTheirNumbers) {
  SearchOptions o;
  o.beam_size = 1;
  BeamState s({{4}, {5}}, o, config(), 1);
  step(s, {{0, 0, 6, -0.5f}, {1, 0, kEos, -0.5f}}, 0);
  const RowMove m = s.advance();
  EXPECT_EQ(m.rows, std::vector<int32_t>{0});
  EXPECT_FALSE(m.same_sources);
  EXPECT_FALSE(m.identity) << "row 1 leaves the batch: the decoders must drop it";
  EXPECT_EQ(s.rows(), 1);
}

TEST(BeamState, ScoresCountEosSubtractTheWordPenaltyAndNormalise) {
  SearchOptions o;
  o.beam_size = 1;
  o.word_penalty = 0.5;
  o.normalize = 0.6;
  BeamState s({{4}}, o, config(), 1);
  step(s, {{0, 0, 7, -1.0f}}, 0);
  s.advance();
  step(s, {{0, 0, kEos, -2.0f}}, 1);
  s.advance();
  const Hypothesis h = s.take_results()[0].at(0);
  EXPECT_EQ(h.tokens, std::vector<int32_t>{7});
  EXPECT_EQ(h.log_prob, -3.0);
  EXPECT_DOUBLE_EQ(h.score, (-3.0 - 2 * 0.5) / std::pow(2.0, 0.6)) << "two tokens, eos counted";
}

TEST(BeamState, AtTheLimitEveryHypothesisFinishesCutOnesCountNoEos) {
  SearchOptions o;
  o.beam_size = o.n_best = 2;
  o.normalize = 1.0;
  o.max_length = 2;
  BeamState s({{4, 5, 6}}, o, config(), 1);
  step(s, {{0, 0, 7, -1.0f}}, 0);
  s.advance();
  ASSERT_FALSE(s.done());
  step(s, {{0, 0, 8, -2.0f}, {0, 0, kEos, -3.5f}}, 1);  // position 2 of 2: both finish
  s.advance();
  ASSERT_TRUE(s.done());
  const auto r = s.take_results()[0];
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].tokens, (std::vector<int32_t>{7, 8})) << "cut at the limit: its last token kept";
  EXPECT_DOUBLE_EQ(r[0].score, -3.0 / 2);
  EXPECT_EQ(r[1].tokens, std::vector<int32_t>{7});
  EXPECT_DOUBLE_EQ(r[1].score, -4.5 / 2);
}

TEST(BeamState, NBestKeepsTheBestInOrderOfScore) {
  SearchOptions o;
  o.beam_size = 3;
  o.n_best = 2;
  BeamState s({{4}}, o, config(), 1);
  step(s, {{0, 0, kEos, -3.0f}, {0, 0, 5, -0.5f}, {0, 0, 6, -0.75f}}, 0);
  s.advance();
  step(s, {{0, 0, kEos, -0.5f}, {0, 1, kEos, -0.5f}}, 1);
  s.advance();
  const auto r = s.take_results()[0];
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].tokens, std::vector<int32_t>{5});
  EXPECT_EQ(r[0].score, -1.0);
  EXPECT_EQ(r[1].tokens, std::vector<int32_t>{6});
  EXPECT_EQ(r[1].score, -1.25);
}

}  // namespace
}  // namespace realmt::search
