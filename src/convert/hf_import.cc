#include "convert/hf_import.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "convert/hf_config.h"
#include "convert/hf_names.h"
#include "convert/torch_reader.h"
#include "core/error.h"
#include "core/log.h"
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

// The weights by name as f32 host tensors (f16, bf16 and f64 converted at load), and the tensors
// left out because realmt does not read their dtype (integer and bool buffers), by name -> dtype.
struct HfWeights {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> skipped;
};

void add_safetensors(const std::string& path, HfWeights& w) {
  const models::SafetensorsFile f = models::load_safetensors(path, {.list_foreign_dtypes = true});
  for (const auto& [name, dtype] : f.skipped) w.skipped[name] = dtype;
  for (const std::string& name : f.names) {
    const Tensor t = f.get(name);
    if (t.dtype() == DType::kF32 || t.dtype() == DType::kF16 || t.dtype() == DType::kBF16 ||
        t.dtype() == DType::kF64)
      w.tensors.insert_or_assign(name, t.dtype() == DType::kF32 ? t : ops::cast(t, DType::kF32));
    else
      w.skipped[name] = models::safetensors_dtype_name(t.dtype());
  }
}

void add_torch(const std::string& path, HfWeights& w) {
  for (auto& [name, t] : read_torch_state_dict(path, &w.skipped))
    w.tensors.insert_or_assign(name, std::move(t));
}

// A sharded checkpoint: the index's weight_map {tensor: shard file}; every shard is read, and each
// tensor the index names must be in its shard (with the dtype it has there, or skipped).
HfWeights read_sharded(const std::string& dir, const std::string& index_name,
                       void (*add)(const std::string&, HfWeights&)) {
  const std::string index = dir + "/" + index_name;
  const Json j = read_json(index);
  REALMT_CHECK(j.is_object() && j.contains("weight_map") && j["weight_map"].is_object() &&
                   !j["weight_map"].empty(),
               "{}: a non-empty object 'weight_map' {{tensor: shard file}} is needed", index);
  std::map<std::string, std::string> shard_of;
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : j["weight_map"].items()) {
    REALMT_CHECK(shard.is_string(), "{}: the shard of tensor '{}' is {}, not a file name", index,
                 tensor, shard.dump());
    const fs::path p(shard.get<std::string>());
    REALMT_CHECK(!p.empty() && p.is_relative() && p.lexically_normal().string().rfind("..", 0) != 0,
                 "{}: shard '{}' of tensor '{}' is not a file in the model directory", index,
                 p.string(), tensor);
    shard_of[tensor] = p.string();
    shards.insert(p.string());
  }
  HfWeights w;
  for (const std::string& shard : shards) {
    const std::string path = dir + "/" + shard;
    REALMT_CHECK(fs::is_regular_file(path), "{}: shard {} not found (named by {})", dir, shard,
                 index_name);
    HfWeights one;
    add(path, one);
    auto once = [&](const std::string& name) {
      REALMT_CHECK(!w.tensors.count(name) && !w.skipped.count(name),
                   "{}: tensor '{}' is in two shards (the second: {})", dir, name, shard);
    };
    for (auto& [name, t] : one.tensors) {
      once(name);
      w.tensors.emplace(name, std::move(t));
    }
    for (auto& [name, dtype] : one.skipped) {
      once(name);
      w.skipped.emplace(name, dtype);
    }
    for (const auto& [tensor, s] : shard_of)
      REALMT_CHECK(s != shard || w.tensors.count(tensor) || w.skipped.count(tensor),
                   "{}: {} puts tensor '{}' in shard {}, which lacks it", dir, index_name, tensor,
                   shard);
  }
  return w;
}

// Hugging Face's order of preference: safetensors before pickles, whole files before shards.
HfWeights read_weights(const std::string& dir) {
  HfWeights w;
  if (fs::is_regular_file(dir + "/model.safetensors")) {
    add_safetensors(dir + "/model.safetensors", w);
    return w;
  }
  if (fs::is_regular_file(dir + "/model.safetensors.index.json"))
    return read_sharded(dir, "model.safetensors.index.json", add_safetensors);
  if (fs::is_regular_file(dir + "/pytorch_model.bin")) {
    add_torch(dir + "/pytorch_model.bin", w);
    return w;
  }
  if (fs::is_regular_file(dir + "/pytorch_model.bin.index.json"))
    return read_sharded(dir, "pytorch_model.bin.index.json", add_torch);
  REALMT_FAIL(
      "{}: none of model.safetensors, model.safetensors.index.json, pytorch_model.bin, "
      "pytorch_model.bin.index.json found: not a Hugging Face model directory",
      dir);
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
                 "{}: ids must be 0..{} and each once; '{}' has {}", path, table.size() - 1, piece,
                 i);
    seen[i] = true;
    table[i] = piece;
  }
  return table;
}

class Weights {
 public:
  Weights(HfWeights w, std::string dir) : w_(std::move(w)), dir_(std::move(dir)) {}
  bool has(const std::string& name) const { return w_.tensors.count(name) > 0; }
  // The first of `names` present; a needed tensor of a dtype realmt does not read is named with it.
  const Tensor& get(std::initializer_list<std::string> names) const {
    for (const std::string& n : names) {
      const auto it = w_.tensors.find(n);
      if (it != w_.tensors.end()) {
        used_.insert(n);
        return it->second;
      }
    }
    for (const std::string& n : names) {
      const auto it = w_.skipped.find(n);
      REALMT_CHECK(it == w_.skipped.end(),
                   "{}: tensor '{}' has dtype {}, where a floating tensor (f32, f16, bf16, "
                   "f64) is needed",
                   dir_, n, it->second);
    }
    REALMT_FAIL("{}: the weights lack tensor '{}'", dir_, *names.begin());
  }
  const Tensor& get(const std::string& name) const { return get({name}); }
  // A debug line for each tensor the conversion did not use (buffers such as position ids).
  void log_unused() const {
    for (const auto& [name, t] : w_.tensors)
      if (!used_.count(name))
        log::debug("{}: tensor '{}' ({}) not used", dir_, name, t.shape().str());
    for (const auto& [name, dtype] : w_.skipped)
      log::debug("{}: tensor '{}' ({}) skipped: realmt reads floating tensors and does not use it",
                 dir_, name, dtype);
  }

 private:
  HfWeights w_;
  std::string dir_;
  mutable std::set<std::string> used_;
};

}  // namespace

ConvertedModel import_hf(const std::string& dir) {
  const std::string cpath = dir + "/config.json";
  HfConfig h = read_hf_config(cpath);
  ConvertedModel m;
  m.origin = "hf:" + fs::path(dir).lexically_normal().string();
  m.config = h.model;
  models::ModelConfig& mc = m.config;
  const bool share = h.share, tie = h.tie;
  const int64_t target_vocab = h.target_vocab;

  // Vocabulary tables and special ids.
  m.source_table = read_table(dir + "/vocab.json");
  if (!share && fs::is_regular_file(dir + "/target_vocab.json"))
    m.target_table = read_table(dir + "/target_vocab.json");
  REALMT_CHECK(static_cast<int64_t>(m.source_table.size()) == mc.vocab_size,
               "{}/vocab.json has {} pieces, config.json's vocab_size is {}", dir,
               m.source_table.size(), mc.vocab_size);
  REALMT_CHECK(static_cast<int64_t>(m.target_pieces().size()) == target_vocab,
               "{}: the target vocabulary has {} pieces, config.json's decoder_vocab_size is {}",
               dir, m.target_pieces().size(), target_vocab);
  mc.unk_id = -1;
  for (size_t i = 0; i < m.source_table.size(); ++i)
    if (m.source_table[i] == "<unk>") mc.unk_id = static_cast<int>(i);
  REALMT_CHECK(mc.unk_id >= 0, "{}/vocab.json has no <unk>", dir);
  try {
    mc.validate();
  } catch (const Error& e) {
    REALMT_FAIL("{}: {}", cpath, e.what());
  }

  // Weights: PyTorch's Linear holds W [out, in] (y = x W^T + b); realmt's layers W [in, out].
  const Weights w(read_weights(dir), dir);
  auto add = [&](const std::string& name, const Tensor& t) { m.tensors.emplace_back(name, t); };
  const std::string shared = "model.shared.weight", enc_emb = "model.encoder.embed_tokens.weight",
                    dec_emb = "model.decoder.embed_tokens.weight";
  // transformers 5 ties the encoder's and the decoder's tables to model.shared only with
  // tie_word_embeddings: a model it saved untied holds three tables, each trained on its own
  // (model.shared then unused); one saved by transformers 4 holds one table three times.
  const bool own_tables = share && !tie && w.has(enc_emb) && w.has(dec_emb) &&
                          w.get(enc_emb).to_vector<float>() != w.get(dec_emb).to_vector<float>();
  if (own_tables) mc.tied_embeddings_src = false;
  const Tensor& target_table =
      share && !own_tables ? w.get({shared, dec_emb, enc_emb}) : w.get({dec_emb});
  add("embeddings.weight", target_table);
  if (!share || own_tables) add("source_embeddings.weight", w.get({enc_emb}));
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
  // Every layer parameter through Hugging Face's naming table (hf_names.h).
  for (const models::LayoutEntry& e : models::Layout(mc).entries()) {
    const HfMapping to = hf_mapping(e);
    REALMT_CHECK(to.kind != HfMapping::Kind::kNone,
                 "{}: realmt's '{}' has no Hugging Face counterpart: {}", dir, e.name, to.reason);
    if (to.kind == HfMapping::Kind::kTable) continue;
    std::vector<Tensor> parts;
    for (const std::string& name : to.tensors)
      parts.push_back(to.transpose ? transposed(w.get(name)) : w.get(name));
    add(e.name, parts.size() == 1 ? parts[0]
                : to.transpose    ? join_columns(parts)
                                  : ops::concat(parts, 0));
  }
  check_parameters(m);
  w.log_unused();
  return m;
}

}  // namespace realmt::convert
