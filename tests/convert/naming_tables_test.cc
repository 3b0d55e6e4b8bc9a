// The converters' naming tables over realmt's layout (models/layout.h): CTranslate2's
// (ct2_export.h), Marian's (marian_names.h) and Hugging Face's (hf_names.h) each map every entry
// of every model shape to a name of their own, unique, or say why they have none.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "../common/expect_error.h"
#include "convert/ct2_export.h"
#include "convert/hf_names.h"
#include "convert/marian_names.h"
#include "models/layout.h"

namespace realmt::convert {
namespace {

using models::Part;
using models::Stack;

// Shapes covering every optional part: ADMIN omegas, Pre-LN final norms, learned positions,
// untied tables, the output bias.
std::vector<models::ModelConfig> variants() {
  models::ModelConfig c;
  c.vocab_size = 12;
  c.enc_depth = 2;
  c.dec_depth = 2;
  c.dim_emb = 8;
  c.heads = 2;
  c.dim_ffn = 16;
  c.admin_init = models::AdminInit::kClosedForm;
  std::vector<models::ModelConfig> out{c};
  c.admin_init = models::AdminInit::kNone;
  out.push_back(c);
  c.norm = models::Norm::kPre;
  out.push_back(c);
  c.positions = layers::Positions::kLearned;
  c.tied_embeddings_all = false;
  c.output_bias = true;
  out.push_back(c);
  return out;
}

TEST(NamingTables, Ct2NamesEveryEntryOnce) {
  for (const models::ModelConfig& c : variants()) {
    std::set<std::string> names;
    for (const models::LayoutEntry& e : models::Layout(c).entries()) {
      const Ct2Mapping m = ct2_mapping(e);
      using Kind = Ct2Mapping::Kind;
      EXPECT_EQ(m.kind == Kind::kTable, e.role.stack == Stack::kNone) << e.name;
      EXPECT_EQ(m.kind == Kind::kFolded, e.role.part == Part::kOmega) << e.name;
      EXPECT_EQ(m.kind == Kind::kTransposed,
                e.role.field == models::Field::kWeight && e.role.stack != Stack::kNone)
          << e.name;
      if (m.kind == Kind::kTensor || m.kind == Kind::kTransposed) {
        EXPECT_TRUE(names.insert(m.name).second) << e.name << " -> " << m.name << ", named twice";
        const std::string stack = e.role.stack == Stack::kEncoder ? "encoder/" : "decoder/";
        EXPECT_EQ(m.name.rfind(stack, 0), 0u) << e.name << " -> " << m.name;
      }
    }
  }
}

TEST(NamingTables, MarianNamesEveryEntryOnceOrRefuses) {
  for (const models::ModelConfig& c : variants()) {
    std::set<std::string> names;
    for (const models::LayoutEntry& e : models::Layout(c).entries()) {
      const MarianMapping m = marian_mapping(e, c);
      using Kind = MarianMapping::Kind;
      EXPECT_EQ(m.kind == Kind::kTable, e.role.stack == Stack::kNone) << e.name;
      EXPECT_EQ(m.kind == Kind::kNone, e.role.part == Part::kOmega) << e.name;
      if (m.kind == Kind::kNone) {
        EXPECT_NE(m.reason.find("omega"), std::string::npos) << m.reason;
      }
      if (m.kind != Kind::kParameter) continue;
      EXPECT_EQ(m.parameter.realmt, e.name);
      EXPECT_EQ(m.parameter.vector, e.shape.rank() == 1) << e.name;
      for (const std::string& n : m.parameter.marian)
        EXPECT_TRUE(names.insert(n).second) << e.name << " -> " << n << ", named twice";
    }
  }
  // A model with omegas has no Marian counterpart: the table says which parameter and why.
  realmt::testing::expect_error([&] { marian_layer_parameters(variants()[0]); },
                                {"encoder.layers.0.self_attn.omega", "Marian"});
}

TEST(NamingTables, HuggingFaceNamesEveryEntryOnceOrRefuses) {
  for (const models::ModelConfig& c : variants()) {
    std::set<std::string> names;
    for (const models::LayoutEntry& e : models::Layout(c).entries()) {
      const HfMapping m = hf_mapping(e);
      using Kind = HfMapping::Kind;
      EXPECT_EQ(m.kind == Kind::kTable, e.role.stack == Stack::kNone) << e.name;
      const bool absent =
          e.role.part == Part::kOmega || (e.role.stack != Stack::kNone && e.role.layer < 0);
      EXPECT_EQ(m.kind == Kind::kNone, absent) << e.name;
      if (m.kind == Kind::kNone) {
        EXPECT_FALSE(m.reason.empty()) << e.name;
      }
      if (m.kind != Kind::kParameter) continue;
      EXPECT_EQ(m.transpose, e.shape.rank() == 2) << e.name;
      for (const std::string& n : m.tensors)
        EXPECT_TRUE(names.insert(n).second) << e.name << " -> " << n << ", named twice";
    }
  }
}

}  // namespace
}  // namespace realmt::convert
