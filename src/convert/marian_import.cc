#include "convert/marian_import.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>

#include "convert/marian_names.h"
#include "convert/npy.h"
#include "convert/zip_reader.h"
#include "core/error.h"
#include "data/marian_vocab.h"
#include "ops/concat.h"

namespace realmt::convert {
namespace {

// Marian's .yml vocabulary {piece: id} as pieces by id (ids 0..n-1, each once).
std::vector<std::string> read_yml_vocab(const std::string& path) {
  REALMT_CHECK(data::is_word_list_path(path),
               "{}: a Marian vocabulary (.yml {{piece: id}}) is needed to read a Marian model's ids; the .spm files "
               "are given to realmt-translate afterwards",
               path);
  return data::read_word_list(path);
}

int find_piece(const std::vector<std::string>& table, const std::string& piece, const std::string& path) {
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i] == piece) return static_cast<int>(i);
  REALMT_FAIL("{}: the vocabulary has no '{}'", path, piece);
}

// t [V, ...] with one more row of `fill`.
Tensor add_row(const Tensor& t, float fill) {
  std::vector<int64_t> dims = t.shape().vec();
  dims[0] = 1;
  return ops::concat({t, Tensor::full(Shape(dims), fill)}, 0);
}

}  // namespace

ConvertedModel import_marian(const std::string& npz, const std::vector<std::string>& vocabs) {
  REALMT_CHECK(!vocabs.empty() && vocabs.size() <= 2,
               "vocabs: give the Marian model's .yml vocabulary once, or once a side (source, target)");
  const ZipReader zip(npz);
  std::map<std::string, NpyArray> arrays;
  for (const ZipMember& mem : zip.members()) {
    std::string name = mem.name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    arrays.emplace(name, parse_npy(zip.read(mem), npz + ": " + mem.name));
  }
  const auto yml = arrays.find("special:model.yml");
  REALMT_CHECK(yml != arrays.end(), "{}: no 'special:model.yml' (the model's config): not a Marian model", npz);
  const std::string config_text = npy_to_text(yml->second, npz + ": special:model.yml");
  YAML::Node y;
  try {
    y = YAML::Load(config_text);
  } catch (const YAML::Exception& e) {
    REALMT_FAIL("{}: special:model.yml is not YAML: {}", npz, e.what());
  }
  const std::string where = npz + " (special:model.yml)";
  auto str = [&](const char* key, const std::string& fallback) {
    return y[key] && !y[key].IsNull() ? y[key].as<std::string>() : fallback;
  };
  auto num = [&](const char* key, int64_t fallback) { return y[key] ? y[key].as<int64_t>() : fallback; };
  auto flag = [&](const char* key) { return y[key] && y[key].as<bool>(); };
  REALMT_CHECK(str("type", "transformer") == "transformer", "{}: type '{}': realmt reads Marian transformers", where,
               str("type", ""));
  REALMT_CHECK(str("transformer-preprocess", "") == "" && str("transformer-postprocess", "dan") == "dan",
               "{}: transformer-preprocess '{}', transformer-postprocess '{}': realmt reads Post-LN models ('' and "
               "dan)",
               where, str("transformer-preprocess", ""), str("transformer-postprocess", "dan"));
  REALMT_CHECK(str("transformer-postprocess-emb", "d") == "d", "{}: transformer-postprocess-emb '{}' (realmt: d)", where,
               str("transformer-postprocess-emb", "d"));
  REALMT_CHECK(num("transformer-ffn-depth", 2) == 2 && num("transformer-decoder-ffn-depth", 0) <= 2,
               "{}: feed-forward depths other than 2 are not supported", where);
  REALMT_CHECK(str("transformer-decoder-autoreg", "self-attention") == "self-attention",
               "{}: transformer-decoder-autoreg '{}' (realmt: self-attention)", where,
               str("transformer-decoder-autoreg", ""));
  REALMT_CHECK(!flag("transformer-no-projection") && !flag("right-left"),
               "{}: transformer-no-projection and right-left are not supported", where);

  ConvertedModel m;
  m.origin = "marian:" + std::filesystem::path(npz).lexically_normal().string();
  models::ModelConfig& c = m.config;
  c.dim_emb = num("dim-emb", 512);
  c.enc_depth = static_cast<int>(num("enc-depth", 6));
  c.dec_depth = static_cast<int>(num("dec-depth", 6));
  c.heads = static_cast<int>(num("transformer-heads", 8));
  c.dim_ffn = num("transformer-dim-ffn", 2048);
  const int64_t dec_ffn = num("transformer-decoder-dim-ffn", 0);
  REALMT_CHECK(dec_ffn == 0 || dec_ffn == c.dim_ffn,
               "{}: transformer-decoder-dim-ffn {} differs from transformer-dim-ffn {}; realmt has one size", where,
               dec_ffn, c.dim_ffn);
  const std::string act = str("transformer-ffn-activation", "swish");
  if (act == "swish") c.ffn_activation = ops::Activation::kSwish;
  else if (act == "relu") c.ffn_activation = ops::Activation::kRelu;
  else if (act == "gelu") c.ffn_activation = ops::Activation::kGelu;
  else REALMT_FAIL("{}: transformer-ffn-activation '{}' (realmt: swish, relu, gelu)", where, act);
  c.norm = models::Norm::kPost;
  c.admin_init = models::AdminInit::kNone;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      layers::ResidualMode::kNone;
  c.positions = layers::Positions::kSinusoidalMarian;
  c.scale_embeddings = true;
  c.layer_norm_eps = 1e-6;  // Marian's layerNorm in its transformer
  const bool all = flag("tied-embeddings-all");
  c.tied_embeddings_all = all;
  c.tied_embeddings_src = !all && flag("tied-embeddings-src");
  c.tied_embeddings = !all && flag("tied-embeddings");
  c.dropout = y["transformer-dropout"] ? y["transformer-dropout"].as<double>() : 0.1;

  // Vocabularies: Marian's ids, plus <pad> at the end of each (the decoder's start).
  m.source_table = read_yml_vocab(vocabs.front());
  if (vocabs.back() != vocabs.front()) m.target_table = read_yml_vocab(vocabs.back());
  const int64_t vs = static_cast<int64_t>(m.source_table.size()), vt = static_cast<int64_t>(m.target_pieces().size());
  c.eos_id = find_piece(m.target_pieces(), "</s>", vocabs.back());
  c.unk_id = find_piece(m.target_pieces(), "<unk>", vocabs.back());
  REALMT_CHECK(find_piece(m.source_table, "</s>", vocabs.front()) == c.eos_id &&
                   find_piece(m.source_table, "<unk>", vocabs.front()) == c.unk_id,
               "{} and {}: </s> and <unk> have other ids on the two sides", vocabs.front(), vocabs.back());
  m.source_table.push_back("<pad>");
  if (!m.target_table.empty()) m.target_table.push_back("<pad>");
  REALMT_CHECK(vs == vt, "{} and {}: vocabularies of {} and {} pieces; the <pad> entry realmt adds must have one id "
               "on both sides, so both must have one size", vocabs.front(), vocabs.back(), vs, vt);
  c.vocab_size = vs + 1;
  c.target_vocab_size = 0;
  c.pad_id = c.decoder_start_id = static_cast<int>(vs);
  c.output_bias = true;
  c.dim_vocabs.clear();
  c.validate();

  auto get = [&](const std::string& name) {
    const auto it = arrays.find(name);
    REALMT_CHECK(it != arrays.end(), "{}: no tensor '{}'", npz, name);
    return npy_to_f32(it->second, npz + ": " + name);
  };
  auto add = [&](const std::string& name, const Tensor& t) { m.tensors.emplace_back(name, t); };
  auto table = [&](const std::string& name, int64_t rows) {
    const Tensor t = get(name);
    REALMT_CHECK(t.rank() == 2 && t.dim(0) == rows && t.dim(1) == c.dim_emb, "{}: '{}' is {}, [{}, {}] expected", npz,
                 name, t.shape().str(), rows, c.dim_emb);
    return add_row(t, 0.0f);
  };
  const std::string target_name = all || c.tied_embeddings_src ? "Wemb" : "decoder_Wemb";
  add("embeddings.weight", table(target_name, vt));
  if (!c.source_target_tied()) add("source_embeddings.weight", table("encoder_Wemb", vs));
  if (!c.target_output_tied()) add("output.weight", add_row(transposed(get("decoder_ff_logit_out_W")), 0.0f));
  // The added entry's logit is -1e9 (+ h . 0): no probability, as in Marian, and finite.
  add("output.bias", add_row(flat(get("decoder_ff_logit_out_b")), -1e9f));
  for (const MarianParameter& p : marian_layer_parameters(c)) {
    std::vector<Tensor> parts;
    for (const std::string& name : p.marian) parts.push_back(p.vector ? flat(get(name)) : get(name));
    add(p.realmt, parts.size() == 1 ? parts[0] : p.vector ? ops::concat(parts, 0) : join_columns(parts));
  }
  check_parameters(m);
  return m;
}

}  // namespace realmt::convert
