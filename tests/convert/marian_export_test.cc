// realmt-convert --to marian: the written .npz read back by the Marian importer gives the same
// parameters and the same translations; models Marian cannot express are refused with the option.
#include "convert/marian_export.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "../common/temp_dir.h"
#include "convert/marian_import.h"
#include "convert/zip_reader.h"
#include "core/error.h"
#include "models/transformer.h"
#include "search/beam_search.h"

namespace realmt::convert {
namespace {

using realmt::testing::TempDir;

// A random model Marian can express (tiny: 1 + 1 layers, 12 pieces) as a ConvertedModel.
ConvertedModel random_model(models::ModelConfig c, uint64_t seed,
                            layers::Positions positions = layers::Positions::kSinusoidalMarian) {
  c.vocab_size = 12;
  c.enc_depth = c.dec_depth = 1;
  c.dim_emb = 8;
  c.heads = 2;
  c.dim_ffn = 16;
  c.ffn_activation = ops::Activation::kSwish;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      layers::ResidualMode::kNone;
  c.admin_init = models::AdminInit::kNone;
  c.positions = positions;
  c.layer_norm_eps = 1e-6;
  c.output_bias = true;
  models::Transformer t(c);
  t.allocate(Device::cpu());
  t.init(seed);
  ConvertedModel m;
  m.config = c;
  for (int i = 0; i < t.params().size(); ++i)
    m.tensors.emplace_back(t.params().names()[i], t.params()[i].value());
  return m;
}

std::unique_ptr<models::Transformer> instantiate(const ConvertedModel& m) {
  auto t = std::make_unique<models::Transformer>(m.config);
  t->allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
  for (int i = 0; i < t->params().size(); ++i)
    t->params()[i].value().copy_from(m.tensor(t->params().names()[i]));
  return t;
}

std::vector<std::vector<search::Hypothesis>> translate(const ConvertedModel& m) {
  const auto t = instantiate(m);
  search::SearchOptions o;
  o.n_best = o.beam_size = 3;
  o.length_rule = search::LengthRule::kMarian;
  o.repeat_ngram = 0;
  return search::BeamSearch({t.get()}).search({{4, 5, 6}, {7, 8, 9, 10, 4}, {11}, {5, 5, 6, 7}}, o);
}

void expect_same_translations(const ConvertedModel& a, const ConvertedModel& b) {
  const auto x = translate(a), y = translate(b);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(x[i].size(), y[i].size()) << "sentence " << i;
    for (size_t k = 0; k < x[i].size(); ++k) {
      EXPECT_EQ(x[i][k].tokens, y[i][k].tokens) << "sentence " << i << " hypothesis " << k;
      EXPECT_NEAR(x[i][k].score, y[i][k].score, 1e-5) << "sentence " << i << " hypothesis " << k;
    }
  }
}

// A model converted from Marian (eos 0, unk 1, a zero <pad> row last where decoding starts):
// written and read back, every parameter is the same, bit for bit, and so are the translations.
TEST(MarianExport, ConvertedModelRoundTripsBitForBit) {
  TempDir dir;
  for (bool tied : {true, false}) {
    models::ModelConfig c;
    c.eos_id = 0;
    c.unk_id = 1;
    c.pad_id = c.decoder_start_id = 11;
    c.tied_embeddings_all = tied;
    ConvertedModel m = random_model(c, tied ? 5 : 6);
    for (auto& [name, t] : m.tensors) {  // the importer's <pad> row: zero embedding, bias -1e9
      if (name.find("embeddings.weight") != std::string::npos || name == "output.weight")
        t.narrow0(11, 12).copy_from(Tensor::zeros({1, 8}));
      if (name == "output.bias") t.narrow0(11, 12).copy_from(Tensor::full({1}, -1e9));
    }
    m.source_table = {"</s>", "<unk>", "a", "b", "c", "d", "e", "f", "g", "h", "i", "<pad>"};
    const std::string npz = dir.file(tied ? "tied.npz" : "untied.npz");
    const std::vector<std::string> vocabs = write_marian(m, npz);
    ASSERT_EQ(vocabs.size(), 1u);
    EXPECT_TRUE(std::filesystem::exists(npz + ".decoder.yml"));
    const ConvertedModel back = import_marian(npz, vocabs);
    EXPECT_EQ(back.config.to_yaml(), m.config.to_yaml());
    EXPECT_EQ(back.source_table, m.source_table);
    ASSERT_EQ(back.tensors.size(), m.tensors.size());
    for (const auto& [name, t] : m.tensors)
      EXPECT_EQ(back.tensor(name).to_vector<float>(), t.to_vector<float>()) << name;
    expect_same_translations(m, back);
  }
}

// Learned positions (transformer-positions learned, no sqrt(D) scale) are written as Marian's
// transformer-train-positions with its one table Wpos, and read back bit for bit.
TEST(MarianExport, LearnedPositionsRoundTripBitForBit) {
  TempDir dir;
  models::ModelConfig c;
  c.eos_id = 0;
  c.unk_id = 1;
  c.pad_id = c.decoder_start_id = 11;
  c.tied_embeddings_all = true;
  c.scale_embeddings = false;
  c.learned_positions = 20;
  ConvertedModel m = random_model(c, 12, layers::Positions::kLearned);
  for (auto& [name, t] : m.tensors) {
    if (name == "embeddings.weight") t.narrow0(11, 12).copy_from(Tensor::zeros({1, 8}));
    if (name == "output.bias") t.narrow0(11, 12).copy_from(Tensor::full({1}, -1e9));
  }
  m.source_table = {"</s>", "<unk>", "a", "b", "c", "d", "e", "f", "g", "h", "i", "<pad>"};
  const std::vector<std::string> vocabs = write_marian(m, dir.file("learned.npz"));
  const ZipReader zip(dir.file("learned.npz"));
  EXPECT_NE(zip.find("Wpos.npy"), nullptr);
  const std::string yml = zip.read(*zip.find("special:model.yml.npy"));
  EXPECT_NE(yml.find("transformer-train-positions: true"), std::string::npos);
  const ConvertedModel back = import_marian(dir.file("learned.npz"), vocabs);
  EXPECT_EQ(back.config.to_yaml(), m.config.to_yaml());
  ASSERT_EQ(back.tensors.size(), m.tensors.size());
  for (const auto& [name, t] : m.tensors)
    EXPECT_EQ(back.tensor(name).to_vector<float>(), t.to_vector<float>()) << name;
  expect_same_translations(m, back);
}

// A realmt-trained model (realmt's ids, decoder-start-zero) read back by the importer is a
// Marian model with a <pad> row added for its start: it translates as the original did, which
// shows that decoder-start-zero is Marian's start and that each parameter is where Marian has it.
TEST(MarianExport, DecoderStartZeroIsMariansStart) {
  TempDir dir;
  models::ModelConfig c;
  c.decoder_start_zero = true;
  c.tied_embeddings_all = false;
  ConvertedModel m = random_model(c, 9);
  // Marian knows no <pad> and <s>: their logits are low, as training makes them.
  Tensor& bias = const_cast<Tensor&>(m.tensor("output.bias"));
  for (int64_t id : {0, 2}) bias.narrow0(id, id + 1).copy_from(Tensor::full({1}, -30.0));
  m.source_table = {"<pad>", "<unk>", "<s>", "</s>", "a", "b", "c", "d", "e", "f", "g", "h"};
  const std::vector<std::string> vocabs = write_marian(m, dir.file("m.npz"));
  const ConvertedModel back = import_marian(dir.file("m.npz"), vocabs);
  EXPECT_EQ(back.config.eos_id, 3);
  EXPECT_EQ(back.config.pad_id, 12);
  EXPECT_EQ(back.tensor("decoder.layers.0.cross_attn.kv.weight").to_vector<float>(),
            m.tensor("decoder.layers.0.cross_attn.kv.weight").to_vector<float>());
  expect_same_translations(m, back);
  // The .npz is numpy's: stored .npy members, Marian's names, its config.
  const ZipReader zip(dir.file("m.npz"));
  EXPECT_NE(zip.find("special:model.yml.npy"), nullptr);
  EXPECT_NE(zip.find("decoder_l1_context_Wk.npy"), nullptr);
  EXPECT_NE(zip.find("decoder_ff_logit_out_W.npy"), nullptr);
}

TEST(MarianExport, RefusesWhatMarianCannotExpressNamingTheOption) {
  TempDir dir;
  auto error_of = [&](const models::ModelConfig& c) {
    ConvertedModel m = random_model(c, 1);
    m.source_table.assign(12, "x");
    try {
      write_marian(m, dir.file("x.npz"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  models::ModelConfig c;
  c.decoder_start_zero = true;
  EXPECT_EQ(marian_incompatibility(random_model(c, 1).config), "");
  models::ModelConfig start = c;
  start.decoder_start_zero = false;
  EXPECT_NE(marian_incompatibility(random_model(start, 1).config).find("decoder-start-zero"),
            std::string::npos);
  EXPECT_NE(error_of(start).find("decoder-start-zero"), std::string::npos);
  models::ModelConfig residual = random_model(c, 1).config;
  residual.residual_attention_cross = layers::ResidualMode::kMean;
  EXPECT_NE(marian_incompatibility(residual).find("residual-attention"), std::string::npos);
  models::ModelConfig positions = random_model(c, 1).config;
  positions.positions = layers::Positions::kSinusoidal;
  EXPECT_NE(marian_incompatibility(positions).find("sinusoidal-marian"), std::string::npos);
  models::ModelConfig admin = random_model(c, 1).config;
  admin.admin_init = models::AdminInit::kClosedForm;
  EXPECT_NE(marian_incompatibility(admin).find("admin-init none"), std::string::npos);
  models::ModelConfig eps = random_model(c, 1).config;
  eps.layer_norm_eps = 1e-5;
  EXPECT_NE(marian_incompatibility(eps).find("1e-6"), std::string::npos);
}

}  // namespace
}  // namespace realmt::convert
