// realmt-convert's writers and importers without Python: CTranslate2's model.bin read back
// (header, sorted variables, [out, in] weights, scalars), the refusal of residual attention, a
// realmt checkpoint round trip with its id tables, and the importers' errors naming the file and
// the field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "common/atomic_file.h"
#include "convert/converted_model.h"
#include "convert/ct2_export.h"
#include "convert/hf_import.h"
#include "convert/marian_import.h"
#include "core/error.h"
#include "models/checkpoint.h"
#include "models/safetensors.h"
#include "../common/temp_dir.h"
#include "models/transformer.h"

namespace realmt::convert {
namespace {

using realmt::testing::TempDir;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A random realmt model as a ConvertedModel (parameters by name), with a 10-piece table.
ConvertedModel tiny(models::ModelConfig c) {
  c.vocab_size = 10;
  c.enc_depth = c.dec_depth = 1;
  c.dim_emb = 8;
  c.heads = 2;
  c.dim_ffn = 16;
  models::Transformer t(c);
  t.allocate(Device::cpu());
  t.init(3);
  ConvertedModel m;
  m.config = c;
  for (int i = 0; i < t.params().size(); ++i)
    m.tensors.emplace_back(t.params().names()[i], t.params()[i].value());
  m.source_table = {"<pad>", "<unk>", "<s>", "</s>", "a", "b", "c", "d", "e", "f"};
  return m;
}

// model.bin read back: name -> (type, dims, bytes).
struct Var {
  int type;
  std::vector<uint32_t> dims;
  std::string bytes;
};
std::map<std::string, Var> read_model_bin(const std::string& path, std::string& spec,
                                          uint32_t& revision) {
  const std::string b = read_file(path);
  size_t at = 0;
  auto u = [&](int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b.at(at + i));
    at += n;
    return v;
  };
  auto str = [&] {
    const size_t n = u(2);
    std::string s = b.substr(at, n - 1);
    at += n;
    return s;
  };
  EXPECT_EQ(u(4), 6u);  // binary version
  spec = str();
  revision = static_cast<uint32_t>(u(4));
  std::map<std::string, Var> vars;
  std::string previous;
  for (uint64_t n = u(4); n > 0; --n) {
    const std::string name = str();
    EXPECT_LT(previous, name) << "variables sorted by name";
    previous = name;
    Var v;
    for (uint64_t r = u(1); r > 0; --r) v.dims.push_back(static_cast<uint32_t>(u(4)));
    v.type = static_cast<int>(u(1));
    const size_t bytes = u(4);
    v.bytes = b.substr(at, bytes);
    at += bytes;
    vars[name] = v;
  }
  EXPECT_EQ(u(4), 0u);  // aliases
  EXPECT_EQ(at, b.size());
  return vars;
}

models::ModelConfig plain() {
  models::ModelConfig c;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      layers::ResidualMode::kNone;
  c.admin_init = models::AdminInit::kNone;
  return c;
}

TEST(Ctranslate2Export, WritesTheTransformerSpec) {
  TempDir dir;
  const ConvertedModel m = tiny(plain());
  write_ctranslate2(m, dir.file("ct2"), {.max_positions = 20});
  std::string spec;
  uint32_t revision = 0;
  const auto vars = read_model_bin(dir.file("ct2/model.bin"), spec, revision);
  EXPECT_EQ(spec, "TransformerSpec");
  EXPECT_EQ(revision, 7u);
  // Weights as [out, in]: the fused Q|K|V [3D, D] is realmt's [D, 3D] transposed.
  const Var& qkv = vars.at("encoder/layer_0/self_attention/linear_0/weight");
  EXPECT_EQ(qkv.dims, (std::vector<uint32_t>{24, 8}));
  const Tensor ours = m.tensor("encoder.layers.0.self_attn.qkv.weight");
  float x;
  std::memcpy(&x, qkv.bytes.data() + (5 * 8 + 3) * 4, 4);  // row 5 (output 5), column 3 (input 3)
  EXPECT_EQ(x, ours.data<float>()[3 * 24 + 5]);
  EXPECT_EQ(vars.at("decoder/layer_0/attention/linear_1/weight").dims,
            (std::vector<uint32_t>{16, 8}));  // K|V
  EXPECT_EQ(vars.at("decoder/position_encodings/encodings").dims, (std::vector<uint32_t>{20, 8}));
  EXPECT_EQ(vars.at("encoder/num_heads").type, 2);  // int16
  EXPECT_EQ(vars.at("encoder/num_heads").bytes, std::string("\x02\x00", 2));
  EXPECT_EQ(vars.at("decoder/pre_norm").bytes, std::string("\x00", 1));
  float scale;
  std::memcpy(&scale, vars.at("decoder/scale_embeddings").bytes.data(), 4);
  EXPECT_FLOAT_EQ(scale, std::sqrt(8.0f));
  EXPECT_EQ(vars.count("decoder/projection/bias"), 0u);
  EXPECT_EQ(vars.count("encoder/layer_norm/gamma"), 0u);  // Post-LN: no final norm
  const std::string config = read_file(dir.file("ct2/config.json"));
  EXPECT_NE(config.find("\"decoder_start_token\": \"<s>\""), std::string::npos) << config;
  EXPECT_NE(config.find("\"add_source_eos\": true"), std::string::npos) << config;
  EXPECT_TRUE(std::filesystem::exists(dir.file("ct2/shared_vocabulary.json")));
}

TEST(Ctranslate2Export, PreNormGetsFinalNorms) {
  TempDir dir;
  models::ModelConfig c = plain();
  c.norm = models::Norm::kPre;
  write_ctranslate2(tiny(c), dir.file("ct2"));
  std::string spec;
  uint32_t revision = 0;
  const auto vars = read_model_bin(dir.file("ct2/model.bin"), spec, revision);
  EXPECT_EQ(vars.at("decoder/pre_norm").bytes, std::string("\x01", 1));
  EXPECT_TRUE(vars.count("encoder/layer_norm/gamma") && vars.count("decoder/layer_norm/beta"));
}

// Learned positions: CTranslate2's position encodings are the model's table, its last row repeated
// up to max-positions (as Marian reads positions past the table), with no embedding scale.
TEST(Ctranslate2Export, LearnedPositionsAreTheTable) {
  TempDir dir;
  models::ModelConfig c = plain();
  c.positions = layers::Positions::kLearned;
  c.scale_embeddings = false;
  c.learned_positions = 5;
  const ConvertedModel m = tiny(c);
  write_ctranslate2(m, dir.file("ct2"), {.max_positions = 9});
  std::string spec;
  uint32_t revision = 0;
  const auto vars = read_model_bin(dir.file("ct2/model.bin"), spec, revision);
  const std::vector<float> table = m.tensor("positions").to_vector<float>();
  for (const char* side : {"encoder", "decoder"}) {
    const Var& enc = vars.at(std::string(side) + "/position_encodings/encodings");
    ASSERT_EQ(enc.dims, (std::vector<uint32_t>{9, 8})) << side;
    std::vector<float> got(9 * 8);
    std::memcpy(got.data(), enc.bytes.data(), got.size() * 4);
    for (int r = 0; r < 9; ++r)
      for (int k = 0; k < 8; ++k)
        EXPECT_EQ(got[r * 8 + k], table[std::min(r, 4) * 8 + k]) << side << " row " << r;
    float scale;
    std::memcpy(&scale, vars.at(std::string(side) + "/scale_embeddings").bytes.data(), 4);
    EXPECT_EQ(scale, 1.0f);
  }
}

// Marian's Pre-LN decoding state (a Pre-LN model converted from Marian) has no CTranslate2 form.
TEST(Ctranslate2Export, MarianPreNormDecodingIsRefused) {
  TempDir dir;
  models::ModelConfig c = plain();
  c.norm = models::Norm::kPre;
  c.decoder_cache_unnormed = true;
  const std::string e = error_of([&] { write_ctranslate2(tiny(c), dir.file("ct2")); });
  EXPECT_NE(e.find("transformer-decoder-cache-unnormed"), std::string::npos) << e;
}

TEST(Ctranslate2Export, ResidualAttentionIsRefusedWithTheReason) {
  TempDir dir;
  models::ModelConfig c = plain();
  c.residual_attention_decoder = layers::ResidualMode::kMean;
  const std::string e = error_of([&] { write_ctranslate2(tiny(c), dir.file("ct2")); });
  EXPECT_NE(e.find("residual attention"), std::string::npos) << e;
  EXPECT_NE(e.find("CTranslate2"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(dir.file("ct2/model.bin")));
  ConvertedModel no_vocab = tiny(plain());
  no_vocab.source_table.clear();
  EXPECT_NE(error_of([&] { write_ctranslate2(no_vocab, dir.file("ct2")); }).find("--vocabs"),
            std::string::npos);
}

TEST(RealmtCheckpoint, RoundTripsWithItsTables) {
  TempDir dir;
  models::ModelConfig c = plain();
  c.eos_id = 0;
  c.unk_id = 1;
  c.pad_id = c.decoder_start_id = 9;
  c.output_bias = true;
  ConvertedModel m = tiny(c);
  m.origin = "test";
  write_realmt(m, dir.file("m.realmt"));
  const ConvertedModel back = read_realmt(dir.file("m.realmt"));
  EXPECT_EQ(back.source_table, m.source_table);
  EXPECT_EQ(back.origin, "test");
  EXPECT_EQ(back.config.pad_id, 9);
  EXPECT_EQ(back.tensor("output.bias").to_vector<float>(),
            m.tensor("output.bias").to_vector<float>());
  ConvertedModel extra = m;
  extra.tensors.emplace_back("stray", Tensor::zeros({2}));
  const std::string e = error_of([&] { write_realmt(extra, dir.file("x.realmt")); });
  EXPECT_NE(e.find("unexpected stray"), std::string::npos) << e;
}

// read_realmt goes through the one vocabulary-table reader: a malformed table is an error naming
// the file and the field, not the JSON library's exception.
TEST(RealmtCheckpoint, MalformedTablesNameTheFileAndTheField) {
  TempDir dir;
  const std::string path = dir.file("m.realmt");
  write_realmt(tiny(plain()), path);
  const models::SafetensorsFile f = models::load_safetensors(path);
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& n : f.names) tensors.emplace_back(n, f.get(n).clone());
  for (const auto& [key, text, says] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {models::kVocabTableKey, "[\"a\",", "is not JSON"},
           {models::kVocabTableKey, "{}", "holds a JSON object"},
           {models::kVocabTargetTableKey, "[\"a\", 1]", "holds a number at id 1"}}) {
    models::Metadata meta = f.metadata;
    meta[key] = text;
    models::save_checkpoint(path, tensors, meta);
    std::string e;
    try {
      read_realmt(path);
    } catch (const Error& error) {
      e = error.what();
    }  // any other exception fails the test
    EXPECT_NE(e.find(path + ": model metadata field '" + key + "' " + says), std::string::npos)
        << e;
  }
}

TEST(HfImport, ConfigErrorsNameTheFileAndField) {
  TempDir dir;
  auto config = [&](const std::string& json) { write_file_atomic(dir.file("config.json"), json); };
  EXPECT_NE(error_of([&] { import_hf(dir.path().string()); }).find("config.json not found"),
            std::string::npos);
  config(R"({"model_type": "bart"})");
  std::string e = error_of([&] { import_hf(dir.path().string()); });
  EXPECT_NE(e.find("model_type 'bart'"), std::string::npos) << e;
  config(R"({"model_type": "marian", "d_model": 8, "encoder_layers": 1, "decoder_layers": 1,
             "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 16,
             "decoder_ffn_dim": 32})");
  e = error_of([&] { import_hf(dir.path().string()); });
  EXPECT_NE(e.find("decoder_ffn_dim 32"), std::string::npos) << e;
  config(R"({"model_type": "marian", "d_model": 8, "encoder_layers": 1, "decoder_layers": 1,
             "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 16,
             "decoder_ffn_dim": 16, "activation_function": "tanh"})");
  e = error_of([&] { import_hf(dir.path().string()); });
  EXPECT_NE(e.find("activation_function 'tanh'"), std::string::npos) << e;
}

TEST(MarianImport, ErrorsNameTheFile) {
  TempDir dir;
  std::string e = error_of([&] { import_marian(dir.file("none.npz"), {dir.file("v.yml")}); });
  EXPECT_NE(e.find("none.npz"), std::string::npos) << e;
  write_file_atomic(dir.file("v.spm"), "x");
  // A zip without the config member.
  write_file_atomic(dir.file("empty.npz"), std::string("PK\x05\x06", 4) + std::string(18, '\0'));
  e = error_of([&] { import_marian(dir.file("empty.npz"), {dir.file("v.spm")}); });
  EXPECT_NE(e.find("special:model.yml"), std::string::npos) << e;
}

}  // namespace
}  // namespace realmt::convert
