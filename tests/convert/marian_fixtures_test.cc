// Models trained by real Marian (pymarian 1.12.42; fixtures/marian/make_fixtures.py, ctest label
// marian_fixtures remakes them), one a feature (activation, tying, two vocabularies, Pre-LN,
// the position key), converted with import_marian and decoded as Marian decoded them: greedy and
// beam 4 give Marian's pieces, and every token's log-probability matches Marian's (printed to 5
// decimals). Reads only the committed files: no network, no Python.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "convert/marian_import.h"
#include "convert/npy.h"
#include "convert/zip_reader.h"
#include "convert/zip_writer.h"
#include "layers/embedding.h"
#include "data/vocab.h"
#include "models/transformer.h"
#include "search/beam_search.h"

namespace realmt::convert {
namespace {

const std::string kDir = REALMT_MARIAN_FIXTURES;

struct Expected {
  std::vector<std::string> vocabs;
  std::vector<std::string> sources;
  std::map<int, std::vector<std::string>> pieces;  // beam -> per sentence, pieces joined by spaces
  std::map<int, std::vector<std::vector<double>>> scores;  // beam -> per sentence, per token
};

std::vector<std::string> split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

Expected read_expected(const std::string& dir) {
  std::ifstream f(dir + "/expected.txt");
  EXPECT_TRUE(f.good()) << dir << "/expected.txt";
  Expected e;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    const std::string key = line.substr(0, tab), value = line.substr(tab + 1);
    if (key == "vocabs") {
      for (const std::string& v : split(value)) e.vocabs.push_back(dir + "/" + v);
    } else if (key == "source") {
      e.sources.push_back(value);
    } else if (key.rfind("beam", 0) == 0) {
      e.pieces[std::stoi(key.substr(4))].push_back(value);
    } else if (key.rfind("scores", 0) == 0) {
      std::vector<double> v;
      for (const std::string& w : split(value)) v.push_back(std::stod(w));
      e.scores[std::stoi(key.substr(6))].push_back(v);
    }
  }
  return e;
}

// The source's ids as Marian reads them: a .yml vocabulary's words split at spaces, a .spm's
// pieces (realmt's vocabulary from the converted tables, as realmt-translate builds it).
std::vector<int32_t> encode(const ConvertedModel& m, const std::vector<std::string>& vocabs,
                            const std::string& text) {
  const models::ModelConfig& c = m.config;
  if (vocabs.front().ends_with(".yml")) {
    std::vector<int32_t> ids;
    for (const std::string& w : split(text)) {
      const auto it = std::find(m.source_table.begin(), m.source_table.end(), w);
      ids.push_back(it == m.source_table.end() ? c.unk_id
                                               : static_cast<int32_t>(it - m.source_table.begin()));
    }
    return ids;
  }
  const data::Vocab vocab =
      data::Vocab::from_tables(vocabs.front(), vocabs.back(), m.source_table, m.target_table,
                               {c.pad_id, c.unk_id, c.eos_id, c.decoder_start_id});
  return vocab.encode(text);
}

std::unique_ptr<models::Transformer> instantiate(const ConvertedModel& m) {
  auto t = std::make_unique<models::Transformer>(m.config);
  t->allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
  for (int i = 0; i < t->params().size(); ++i)
    t->params()[i].value().copy_from(m.tensor(t->params().names()[i]));
  return t;
}

// `npz`: the variant's model, or another one that must decode as it did.
void expect_as_marian(const std::string& variant, const std::string& npz = "") {
  const std::string dir = kDir + "/" + variant;
  const Expected e = read_expected(dir);
  ASSERT_FALSE(e.sources.empty());
  const ConvertedModel m = import_marian(npz.empty() ? dir + "/model.npz" : npz, e.vocabs);
  const auto model = instantiate(m);
  std::vector<std::vector<int32_t>> sources;
  for (const std::string& s : e.sources) sources.push_back(encode(m, e.vocabs, s));
  for (const int beam : {1, 4}) {
    search::SearchOptions o;
    o.beam_size = beam;
    o.n_best = 1;
    o.length_rule = search::LengthRule::kMarian;
    o.repeat_ngram = 0;
    const auto out = search::BeamSearch({model.get()}).search(sources, o);
    for (size_t i = 0; i < sources.size(); ++i) {
      const search::Hypothesis& h = out[i].front();
      std::string pieces;
      for (const int32_t id : h.tokens)
        pieces += (pieces.empty() ? "" : " ") + m.target_pieces()[id];
      EXPECT_EQ(pieces, e.pieces.at(beam)[i]) << variant << " beam " << beam << " sentence " << i;
      const std::vector<double>& want = e.scores.at(beam)[i];
      EXPECT_EQ(h.token_log_probs.size(), want.size())
          << variant << " beam " << beam << " sentence " << i;
      for (size_t k = 0; k < std::min(want.size(), h.token_log_probs.size()); ++k)
        EXPECT_NEAR(h.token_log_probs[k], want[k], 2e-4)
            << variant << " beam " << beam << " sentence " << i << " token " << k;
    }
  }
}

TEST(MarianFixtures, ReluTiedSpm) { expect_as_marian("relu_tied"); }
TEST(MarianFixtures, SwishUntied) { expect_as_marian("swish_untied"); }
TEST(MarianFixtures, Gelu1_12_42IsErfWithTwoVocabularies) { expect_as_marian("gelu_two_vocabs"); }
TEST(MarianFixtures, PreNormWithTopNorm) { expect_as_marian("gelu_pre_norm"); }
// transformer-train-position-embeddings: Marian's transformer keeps its sinusoids (scaled
// embeddings) with this key, and so does the conversion.
TEST(MarianFixtures, PositionKeyKeepsSinusoids) { expect_as_marian("relu_position_key"); }
TEST(MarianFixtures, YmlVocabulary) { expect_as_marian("relu_yml"); }
// A .yml source (18 words) and a .spm target (32 pieces): two sizes, unused entries pad the source.
// Marian's `gelu` changed with its version; the fixtures above cover v1.12.42 (erf). Older models
// (and models without a version) mean x sigmoid(1.702 x).
TEST(MarianGelu, ChosenByTheVersionThatWroteTheModel) {
  EXPECT_EQ(marian_gelu("v1.12.42 a3aee8b 2023-07-25 14:57:32 +0000"), ops::Activation::kGelu);
  EXPECT_EQ(marian_gelu("v1.13.0"), ops::Activation::kGelu);
  EXPECT_EQ(marian_gelu("v2.0.1"), ops::Activation::kGelu);
  EXPECT_EQ(marian_gelu("realmt-convert"), ops::Activation::kGelu);
  EXPECT_EQ(marian_gelu("v1.12.14 4b6f3ed 2023-06-02"), ops::Activation::kGeluSigmoid);
  EXPECT_EQ(marian_gelu("v1.9.0"), ops::Activation::kGeluSigmoid);
  EXPECT_EQ(marian_gelu(""), ops::Activation::kGeluSigmoid);
  EXPECT_EQ(marian_gelu("unknown"), ops::Activation::kGeluSigmoid);
}

TEST(MarianFixtures, YmlAndSpmMixOfTwoSizes) { expect_as_marian("swish_yml_spm_mix"); }

// The swish_untied model rewritten with learned positions (transformer-train-positions): its
// tables encoder_Wemb and decoder_Wemb times sqrt(D) (untied from the output layer, which
// stays; Marian scales no embeddings then) and Wpos the sinusoids Marian adds. The
// same function, so Marian's recorded outputs must come back: the encoder reads Wpos rows
// 0 .. T-1, the decoder row t at step t (from the one table both sides share), as Marian trains
// (its own step-by-step decoder reads row 0 at every step: docs/realmt-convert.md).
std::string learned_positions_copy(const std::string& variant, const std::string& out) {
  const ZipReader zip(kDir + "/" + variant + "/model.npz");
  std::vector<std::pair<std::string, std::string>> members;
  int64_t d = 0;
  for (const ZipMember& mem : zip.members()) {
    std::string bytes = zip.read(mem);
    if (mem.name.ends_with("Wemb.npy")) {
      const Tensor w = npy_to_f32(parse_npy(bytes, mem.name), mem.name);
      d = w.dim(1);
      std::vector<float> v(w.data<float>(), w.data<float>() + w.numel());
      for (float& x : v) x *= std::sqrt(static_cast<float>(d));
      bytes = npy_f32(Tensor::from_vector(v, w.shape()));
    } else if (mem.name == "special:model.yml.npy") {
      std::string yml = npy_to_text(parse_npy(bytes, mem.name), mem.name);
      while (!yml.empty() && (yml.back() == '\0' || yml.back() == '\n')) yml.pop_back();
      bytes = npy_text(yml + "\ntransformer-train-positions: true\n");
    }
    members.emplace_back(mem.name, bytes);
  }
  graph::ParameterSet scratch;
  const layers::Embedding sinusoids(scratch, "s", 1, d,
                                    {layers::Positions::kSinusoidalMarian, true});
  members.emplace_back("Wpos.npy",
                       npy_f32(sinusoids.positions(0, 256, DType::kF32, Device::cpu())));
  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  std::ofstream(out, std::ios::binary) << zip_stored(members);
  return out;
}

TEST(MarianFixtures, LearnedPositionsAsSinusoids) {
  const std::string npz = ::testing::TempDir() + "/marian_wpos/model.npz";
  const ConvertedModel m = import_marian(learned_positions_copy("swish_untied", npz),
                                         read_expected(kDir + "/swish_untied").vocabs);
  EXPECT_EQ(m.config.positions, layers::Positions::kLearned);
  EXPECT_FALSE(m.config.scale_embeddings);
  EXPECT_EQ(m.config.learned_positions, 256);
  expect_as_marian("swish_untied", npz);
}

}  // namespace
}  // namespace realmt::convert
