#include "convert/hf_import.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "convert/torch_reader.h"
#include "core/error.h"
#include "models/safetensors.h"
#include "ops/cast.h"
#include "ops/concat.h"

namespace realmt::convert {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

Json read_json(const std::string& path) {
  REALMT_CHECK(fs::is_regular_file(path), "{} not found", path);
  try {
    return Json::parse(read_file(path));
  } catch (const Json::exception& e) {
    REALMT_FAIL("{}: not valid JSON: {}", path, e.what());
  }
}

// The weights by name, as f32 host tensors.
std::map<std::string, Tensor> read_weights(const std::string& dir) {
  const std::string st = dir + "/model.safetensors", bin = dir + "/pytorch_model.bin";
  if (fs::is_regular_file(st)) {
    const models::SafetensorsFile f = models::load_safetensors(st);
    std::map<std::string, Tensor> out;
    for (const std::string& name : f.names) {
      const Tensor t = f.get(name);
      if (t.dtype() == DType::kF32 || t.dtype() == DType::kF16 || t.dtype() == DType::kBF16 || t.dtype() == DType::kF64)
        out.emplace(name, t.dtype() == DType::kF32 ? t : ops::cast(t, DType::kF32));
    }
    return out;
  }
  if (fs::is_regular_file(bin)) return read_torch_state_dict(bin);
  REALMT_CHECK(!fs::is_regular_file(dir + "/model.safetensors.index.json"),
               "{}: sharded weights (model.safetensors.index.json) are not read; save the model unsharded", dir);
  REALMT_FAIL("{}: neither model.safetensors nor pytorch_model.bin found: not a Hugging Face model directory", dir);
}

// vocab.json {piece: id} as pieces by id; ids must be 0..n-1, each once.
std::vector<std::string> read_table(const std::string& path) {
  const Json j = read_json(path);
  REALMT_CHECK(j.is_object() && !j.empty(), "{}: a JSON object {{piece: id}} is needed", path);
  std::vector<std::string> table(j.size());
  std::vector<bool> seen(j.size(), false);
  for (const auto& [piece, id] : j.items()) {
    REALMT_CHECK(id.is_number_integer(), "{}: the id of '{}' is not an integer", path, piece);
    const int64_t i = id.get<int64_t>();
    REALMT_CHECK(i >= 0 && i < static_cast<int64_t>(table.size()) && !seen[i],
                 "{}: ids must be 0..{} and each once; '{}' has {}", path, table.size() - 1, piece, i);
    seen[i] = true;
    table[i] = piece;
  }
  return table;
}

template <typename T>
T field(const Json& c, const std::string& key, const T& fallback, const std::string& path) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  try {
    return c[key].get<T>();
  } catch (const Json::exception& e) {
    REALMT_FAIL("{}: field '{}' has the wrong type: {}", path, key, e.what());
  }
}

class Weights {
 public:
  Weights(std::map<std::string, Tensor> w, std::string dir) : w_(std::move(w)), dir_(std::move(dir)) {}
  bool has(const std::string& name) const { return w_.count(name) > 0; }
  // The first of `names` present.
  const Tensor& get(std::initializer_list<std::string> names) const {
    for (const std::string& n : names) {
      const auto it = w_.find(n);
      if (it != w_.end()) return it->second;
    }
    REALMT_FAIL("{}: the weights lack tensor '{}'", dir_, *names.begin());
  }
  const Tensor& get(const std::string& name) const { return get({name}); }

 private:
  std::map<std::string, Tensor> w_;
  std::string dir_;
};

}  // namespace

ConvertedModel import_hf(const std::string& dir) {
  const std::string cpath = dir + "/config.json";
  const Json c = read_json(cpath);
  const std::string type = field<std::string>(c, "model_type", "", cpath);
  REALMT_CHECK(type == "marian",
               "{}: model_type '{}': realmt-convert reads Hugging Face MarianMTModel directories (model_type marian)",
               cpath, type);
  for (const char* unsupported : {"normalize_before", "add_final_layer_norm", "normalize_embedding"})
    REALMT_CHECK(!field<bool>(c, unsupported, false, cpath), "{}: {} true is not a Marian model realmt reads", cpath,
                 unsupported);
  auto need = [&](const std::string& key) {
    REALMT_CHECK(c.contains(key) && c[key].is_number_integer(), "{}: integer field '{}' missing", cpath, key);
    return c[key].get<int64_t>();
  };
  ConvertedModel m;
  m.origin = "hf:" + fs::path(dir).lexically_normal().string();
  models::ModelConfig& mc = m.config;
  mc.dim_emb = need("d_model");
  mc.enc_depth = static_cast<int>(need("encoder_layers"));
  mc.dec_depth = static_cast<int>(need("decoder_layers"));
  mc.heads = static_cast<int>(need("encoder_attention_heads"));
  REALMT_CHECK(need("decoder_attention_heads") == mc.heads,
               "{}: encoder_attention_heads {} and decoder_attention_heads {} differ; realmt has one head count",
               cpath, mc.heads, need("decoder_attention_heads"));
  mc.dim_ffn = need("encoder_ffn_dim");
  REALMT_CHECK(need("decoder_ffn_dim") == mc.dim_ffn,
               "{}: encoder_ffn_dim {} and decoder_ffn_dim {} differ; realmt has one feed-forward size", cpath,
               mc.dim_ffn, need("decoder_ffn_dim"));
  const std::string act = field<std::string>(c, "activation_function", "gelu", cpath);
  if (act == "swish" || act == "silu") mc.ffn_activation = ops::Activation::kSwish;
  else if (act == "gelu") mc.ffn_activation = ops::Activation::kGelu;
  else if (act == "relu") mc.ffn_activation = ops::Activation::kRelu;
  else REALMT_FAIL("{}: activation_function '{}' (realmt has swish, gelu and relu)", cpath, act);
  mc.vocab_size = need("vocab_size");
  const int64_t target_vocab = field<int64_t>(c, "decoder_vocab_size", mc.vocab_size, cpath);
  mc.target_vocab_size = target_vocab == mc.vocab_size ? 0 : target_vocab;
  mc.dropout = field<double>(c, "dropout", 0.1, cpath);
  mc.dropout_attention = field<double>(c, "attention_dropout", 0.0, cpath);
  mc.dropout_ffn = field<double>(c, "activation_dropout", 0.0, cpath);
  mc.norm = models::Norm::kPost;
  mc.admin_init = models::AdminInit::kNone;
  mc.residual_attention_encoder = mc.residual_attention_decoder = mc.residual_attention_cross =
      layers::ResidualMode::kNone;
  mc.positions = layers::Positions::kSinusoidalHalves;
  mc.scale_embeddings = field<bool>(c, "scale_embedding", false, cpath);
  mc.layer_norm_eps = 1e-5;  // torch.nn.LayerNorm's default, which MarianMTModel uses
  const bool share = field<bool>(c, "share_encoder_decoder_embeddings", true, cpath);
  const bool tie = field<bool>(c, "tie_word_embeddings", true, cpath);
  mc.tied_embeddings_all = share && tie;
  mc.tied_embeddings_src = share && !tie;
  mc.tied_embeddings = !share && tie;

  // Vocabulary tables and special ids.
  m.source_table = read_table(dir + "/vocab.json");
  if (!share && fs::is_regular_file(dir + "/target_vocab.json")) m.target_table = read_table(dir + "/target_vocab.json");
  REALMT_CHECK(static_cast<int64_t>(m.source_table.size()) == mc.vocab_size,
               "{}/vocab.json has {} pieces, config.json's vocab_size is {}", dir, m.source_table.size(),
               mc.vocab_size);
  REALMT_CHECK(static_cast<int64_t>(m.target_pieces().size()) == target_vocab,
               "{}: the target vocabulary has {} pieces, config.json's decoder_vocab_size is {}", dir,
               m.target_pieces().size(), target_vocab);
  mc.pad_id = static_cast<int>(need("pad_token_id"));
  mc.eos_id = static_cast<int>(c["eos_token_id"].is_array() ? c["eos_token_id"][0].get<int64_t>() : need("eos_token_id"));
  mc.decoder_start_id = static_cast<int>(field<int64_t>(c, "decoder_start_token_id", mc.pad_id, cpath));
  mc.unk_id = -1;
  for (size_t i = 0; i < m.source_table.size(); ++i)
    if (m.source_table[i] == "<unk>") mc.unk_id = static_cast<int>(i);
  REALMT_CHECK(mc.unk_id >= 0, "{}/vocab.json has no <unk>", dir);
  mc.dim_vocabs.clear();
  mc.validate();

  // Weights: PyTorch's Linear holds W [out, in] (y = x W^T + b); realmt's layers W [in, out].
  const Weights w(read_weights(dir), dir);
  auto add = [&](const std::string& name, const Tensor& t) { m.tensors.emplace_back(name, t); };
  const std::string shared = "model.shared.weight", enc_emb = "model.encoder.embed_tokens.weight",
                    dec_emb = "model.decoder.embed_tokens.weight";
  const Tensor& target_table = share ? w.get({shared, dec_emb, enc_emb}) : w.get({dec_emb});
  add("embeddings.weight", target_table);
  if (!share) add("source_embeddings.weight", w.get({enc_emb}));
  if (!tie) add("output.weight", w.get({"lm_head.weight"}));
  if (w.has("final_logits_bias")) {
    const Tensor b = flat(w.get("final_logits_bias"));
    bool nonzero = false;
    for (float x : b.to_vector<float>()) nonzero = nonzero || x != 0.0f;
    if (nonzero) {
      mc.output_bias = true;
      add("output.bias", b);
    }
  }
  auto attention = [&](const std::string& hf, const std::string& rm, bool self) {
    const Tensor wq = w.get(hf + ".q_proj.weight"), wk = w.get(hf + ".k_proj.weight"), wv = w.get(hf + ".v_proj.weight");
    const Tensor bq = w.get(hf + ".q_proj.bias"), bk = w.get(hf + ".k_proj.bias"), bv = w.get(hf + ".v_proj.bias");
    if (self) {
      add(rm + ".qkv.weight", join_columns({transposed(wq), transposed(wk), transposed(wv)}));
      add(rm + ".qkv.bias", ops::concat({bq, bk, bv}, 0));
    } else {
      add(rm + ".q.weight", transposed(wq));
      add(rm + ".q.bias", bq);
      add(rm + ".kv.weight", join_columns({transposed(wk), transposed(wv)}));
      add(rm + ".kv.bias", ops::concat({bk, bv}, 0));
    }
    add(rm + ".o.weight", transposed(w.get(hf + ".out_proj.weight")));
    add(rm + ".o.bias", w.get(hf + ".out_proj.bias"));
  };
  auto norm = [&](const std::string& hf, const std::string& rm) {
    add(rm + ".gamma", w.get(hf + ".weight"));
    add(rm + ".beta", w.get(hf + ".bias"));
  };
  auto ffn = [&](const std::string& hf, const std::string& rm) {
    add(rm + ".w1.weight", transposed(w.get(hf + ".fc1.weight")));
    add(rm + ".w1.bias", w.get(hf + ".fc1.bias"));
    add(rm + ".w2.weight", transposed(w.get(hf + ".fc2.weight")));
    add(rm + ".w2.bias", w.get(hf + ".fc2.bias"));
    norm(hf + ".final_layer_norm", rm + ".norm");
  };
  for (int i = 0; i < mc.enc_depth; ++i) {
    const std::string hf = "model.encoder.layers." + std::to_string(i), rm = "encoder.layers." + std::to_string(i);
    attention(hf + ".self_attn", rm + ".self_attn", true);
    norm(hf + ".self_attn_layer_norm", rm + ".self_attn.norm");
    ffn(hf, rm + ".ffn");
  }
  for (int i = 0; i < mc.dec_depth; ++i) {
    const std::string hf = "model.decoder.layers." + std::to_string(i), rm = "decoder.layers." + std::to_string(i);
    attention(hf + ".self_attn", rm + ".self_attn", true);
    norm(hf + ".self_attn_layer_norm", rm + ".self_attn.norm");
    attention(hf + ".encoder_attn", rm + ".cross_attn", false);
    norm(hf + ".encoder_attn_layer_norm", rm + ".cross_attn.norm");
    ffn(hf, rm + ".ffn");
  }
  check_parameters(m);
  return m;
}

}  // namespace realmt::convert
