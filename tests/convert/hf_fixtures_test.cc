// The Hugging Face fixtures (fixtures/hf, made by fixtures/hf/make_fixtures.py with transformers):
// each tiny model, converted by import_hf and written as a realmt checkpoint, must give the
// outputs transformers recorded: the source ids of realmt's vocabulary (its tables and the
// fixture's SentencePiece models), greedy and beam-4 (beam mode full) ids exactly, the greedy
// outputs' text (the target table and target.spm), and the log-probability of every token of the
// greedy output (forced decoding) within 1e-4. No network, no Python: the fixtures are committed.
#include <gtest/gtest.h>

#include "search/beam_search.h"
#include "hf_fixture_util.h"

namespace realmt::convert {
namespace {

using namespace fixtures;
using Ids = std::vector<std::vector<int32_t>>;

Ids search_ids(const models::Transformer& model, const Ids& sources, int beam, double factor) {
  search::SearchOptions o;
  o.beam_size = beam;
  o.beam_mode = search::BeamMode::kFull;
  o.normalize = 1.0;
  o.max_length_factor = factor;
  o.repeat_ngram = 0;
  o.allow_unk = true;
  Ids out;
  for (const auto& h : search::BeamSearch({&model}).search(sources, o))
    out.push_back(h.at(0).tokens);
  return out;
}

void check_fixture(const std::string& name) {
  SCOPED_TRACE(name);
  testing::TempDir tmp;
  const Json want = expected_of(name);
  const Loaded m = load(name, tmp);
  const Ids sources = want["source_ids"].get<Ids>();
  const auto texts = want["source_text"].get<std::vector<std::string>>();
  for (size_t i = 0; i < texts.size(); ++i)
    EXPECT_EQ(m.vocab.encode(texts[i]), sources[i]) << "source ids of '" << texts[i] << "'";
  const double factor = want["max_length_factor"].get<double>();
  EXPECT_EQ(search_ids(*m.model, sources, 1, factor), want["greedy"].get<Ids>()) << "greedy";
  const auto texts_out = want["greedy_text"].get<std::vector<std::string>>();
  for (size_t i = 0; i < texts_out.size(); ++i)
    EXPECT_EQ(m.vocab.decode(want["greedy"][i].get<std::vector<int32_t>>()), texts_out[i])
        << "text of greedy " << i;
  EXPECT_EQ(search_ids(*m.model, sources, 4, factor), want["beam4"].get<Ids>()) << "beam 4";
  const Ids greedy = want["greedy"].get<Ids>();
  const auto lps = want["log_probs"].get<std::vector<std::vector<double>>>();
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::vector<double> got = forced_log_probs(*m.model, sources[i], greedy[i]);
    ASSERT_EQ(got.size(), lps[i].size()) << "sentence " << i;
    for (size_t t = 0; t < got.size(); ++t)
      EXPECT_NEAR(got[t], lps[i][t], 1e-4) << "sentence " << i << " token " << t;
  }
}

TEST(HfFixtures, SwishTied) { check_fixture("swish_tied"); }
TEST(HfFixtures, ReluUntiedOutputLayer) { check_fixture("relu_untied"); }
TEST(HfFixtures, GeluTwoVocabularies) { check_fixture("gelu_two_vocabs"); }
TEST(HfFixtures, MultilingualTargetTags) { check_fixture("multilingual"); }
TEST(HfFixtures, Float16Checkpoint) { check_fixture("f16"); }
TEST(HfFixtures, UnscaledEmbeddingsAndLogitsBias) { check_fixture("noscale_bias"); }

}  // namespace
}  // namespace realmt::convert
