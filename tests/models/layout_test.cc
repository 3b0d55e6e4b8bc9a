// models::Layout, the Transformer's parameters as data: the names checkpoints hold, the optional
// parts each option adds, unique names and roles, and the model declaring exactly the layout.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "models/layout.h"
#include "models/transformer.h"

namespace realmt::models {
namespace {

ModelConfig tiny() {
  ModelConfig c;
  c.vocab_size = 12;
  c.enc_depth = 1;
  c.dec_depth = 1;
  c.dim_emb = 8;
  c.heads = 2;
  c.dim_ffn = 16;
  c.admin_init = AdminInit::kClosedForm;
  return c;
}

// Configurations covering every optional part, alone and together.
std::vector<ModelConfig> variants() {
  std::vector<ModelConfig> out;
  ModelConfig c = tiny();
  c.enc_depth = 2;
  c.dec_depth = 3;
  out.push_back(c);
  c.admin_init = AdminInit::kNone;
  out.push_back(c);
  c.norm = Norm::kPre;
  out.push_back(c);
  c.positions = layers::Positions::kLearned;
  c.learned_positions = 7;
  c.scale_embeddings = false;
  out.push_back(c);
  c.tied_embeddings_all = false;  // three tables
  c.target_vocab_size = 14;
  c.output_bias = true;
  out.push_back(c);
  c.tied_embeddings = true;  // target table = output layer
  out.push_back(c);
  c.tied_embeddings = false;
  c.tied_embeddings_src = true;  // source table = target table
  c.target_vocab_size = 0;
  out.push_back(c);
  return out;
}

std::vector<std::string> names(const Layout& l) {
  std::vector<std::string> out;
  for (const LayoutEntry& e : l.entries()) out.push_back(e.name);
  return out;
}

// The names realmt's checkpoints hold, in their order: the layout must keep them.
TEST(Layout, CheckpointNamesOfAPostLnAdminModel) {
  const std::vector<std::string> want = {"embeddings.weight",
                                         "encoder.layers.0.self_attn.qkv.weight",
                                         "encoder.layers.0.self_attn.qkv.bias",
                                         "encoder.layers.0.self_attn.o.weight",
                                         "encoder.layers.0.self_attn.o.bias",
                                         "encoder.layers.0.self_attn.norm.gamma",
                                         "encoder.layers.0.self_attn.norm.beta",
                                         "encoder.layers.0.self_attn.omega",
                                         "encoder.layers.0.ffn.w1.weight",
                                         "encoder.layers.0.ffn.w1.bias",
                                         "encoder.layers.0.ffn.w2.weight",
                                         "encoder.layers.0.ffn.w2.bias",
                                         "encoder.layers.0.ffn.norm.gamma",
                                         "encoder.layers.0.ffn.norm.beta",
                                         "encoder.layers.0.ffn.omega",
                                         "decoder.layers.0.self_attn.qkv.weight",
                                         "decoder.layers.0.self_attn.qkv.bias",
                                         "decoder.layers.0.self_attn.o.weight",
                                         "decoder.layers.0.self_attn.o.bias",
                                         "decoder.layers.0.self_attn.norm.gamma",
                                         "decoder.layers.0.self_attn.norm.beta",
                                         "decoder.layers.0.self_attn.omega",
                                         "decoder.layers.0.cross_attn.q.weight",
                                         "decoder.layers.0.cross_attn.q.bias",
                                         "decoder.layers.0.cross_attn.kv.weight",
                                         "decoder.layers.0.cross_attn.kv.bias",
                                         "decoder.layers.0.cross_attn.o.weight",
                                         "decoder.layers.0.cross_attn.o.bias",
                                         "decoder.layers.0.cross_attn.norm.gamma",
                                         "decoder.layers.0.cross_attn.norm.beta",
                                         "decoder.layers.0.cross_attn.omega",
                                         "decoder.layers.0.ffn.w1.weight",
                                         "decoder.layers.0.ffn.w1.bias",
                                         "decoder.layers.0.ffn.w2.weight",
                                         "decoder.layers.0.ffn.w2.bias",
                                         "decoder.layers.0.ffn.norm.gamma",
                                         "decoder.layers.0.ffn.norm.beta",
                                         "decoder.layers.0.ffn.omega"};
  const Layout l(tiny());
  EXPECT_EQ(names(l), want);
  EXPECT_EQ(l[l.index({.part = Part::kEmbeddings})].shape, Shape({12, 8}));
  const Role self{.stack = Stack::kDecoder, .layer = 0, .sublayer = Sublayer::kSelfAttn};
  EXPECT_EQ(l[l.index(self.with(Part::kQkv, Field::kWeight))].shape, Shape({8, 24}));
  EXPECT_EQ(l[l.index(self.with(Part::kQkv, Field::kWeight))].init.blocks, 3);
}

TEST(Layout, LearnedPositionsAddExactlyThePositionsTable) {
  ModelConfig c = tiny();
  const Layout plain(c);
  c.positions = layers::Positions::kLearned;
  c.learned_positions = 5;
  const Layout learned(c);
  ASSERT_EQ(learned.size(), plain.size() + 1);
  EXPECT_EQ(learned[0].name, "positions");  // first: the draws of every other parameter follow it
  EXPECT_EQ(learned[0].shape, Shape({5, 8}));
  EXPECT_EQ(learned[0].role.part, Part::kPositions);
  for (int i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(learned[i + 1].name, plain[i].name);
    EXPECT_EQ(learned[i + 1].shape, plain[i].shape);
  }
}

TEST(Layout, OptionalPartsFollowTheConfig) {
  ModelConfig c = tiny();
  c.enc_depth = 2;
  c.dec_depth = 3;
  auto count = [](const ModelConfig& cfg, Part part) {
    int n = 0;
    for (const LayoutEntry& e : Layout(cfg).entries()) n += e.role.part == part;
    return n;
  };
  EXPECT_EQ(count(c, Part::kOmega), 2 * 2 + 3 * 3);  // one per sub-layer with ADMIN
  c.admin_init = AdminInit::kNone;
  EXPECT_EQ(count(c, Part::kOmega), 0);
  EXPECT_EQ(count(c, Part::kNorm), 2 * (2 * 2 + 3 * 3));  // gamma and beta per sub-layer
  c.norm = Norm::kPre;
  EXPECT_EQ(count(c, Part::kNorm), 2 * (2 * 2 + 3 * 3 + 2));  // and the two final norms
  c.tied_embeddings_all = false;
  c.output_bias = true;
  EXPECT_EQ(count(c, Part::kSourceEmbeddings), 1);
  EXPECT_EQ(count(c, Part::kOutput), 1);
  EXPECT_EQ(count(c, Part::kOutputBias), 1);
}

TEST(Layout, NamesAndRolesAreUnique) {
  for (const ModelConfig& c : variants()) {
    const Layout l(c);
    std::set<std::string> seen;
    for (int i = 0; i < l.size(); ++i) {
      EXPECT_TRUE(seen.insert(l[i].name).second) << "repeated name " << l[i].name;
      EXPECT_EQ(l.find(l[i].role), i) << l[i].name << ": its role finds another entry";
      EXPECT_EQ(Layout::name(l[i].role), l[i].name);
    }
  }
}

// The model declares exactly the layout's parameters, in its order, with its shapes.
TEST(Layout, TheModelsParametersAreTheLayout) {
  for (const ModelConfig& c : variants()) {
    const Layout l(c);
    const Transformer m(c);
    ASSERT_EQ(m.params().size(), l.size());
    for (int i = 0; i < l.size(); ++i) {
      EXPECT_EQ(m.params().names()[i], l[i].name);
      EXPECT_EQ(m.params().shapes()[i], l[i].shape) << l[i].name;
    }
  }
}

}  // namespace
}  // namespace realmt::models
