// Hugging Face MarianMTModel directories written here byte by byte (config.json, vocab.json and
// safetensors weights consistent with the config), without Python: f16 and bf16 weights read as
// f32, unused integer and bool buffers skipped with a debug line, a needed tensor of such a dtype
// refused by name, sharded checkpoints (and a missing shard or tensor named), and the config.json
// table: every checked field refused with its name, every used field changing the model.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "convert/hf_config.h"
#include "convert/hf_import.h"
#include "core/error.h"
#include "core/half.h"
#include "core/log.h"
#include "../common/temp_dir.h"

namespace realmt::convert {
namespace {

using Json = nlohmann::ordered_json;
using realmt::testing::TempDir;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A config.json as OPUS-MT's have it (every field of a real one), with small sizes.
Json base_config() {
  return Json::parse(R"({
    "_name_or_path": "tiny", "_num_labels": 3, "activation_dropout": 0.0, "activation_function": "swish",
    "add_bias_logits": false, "add_final_layer_norm": false, "architectures": ["MarianMTModel"],
    "attention_dropout": 0.0, "bad_words_ids": [[9]], "bos_token_id": 0, "classif_dropout": 0.0,
    "classifier_dropout": 0.0, "d_model": 8, "decoder_attention_heads": 2, "decoder_ffn_dim": 16,
    "decoder_layerdrop": 0.0, "decoder_layers": 1, "decoder_start_token_id": 9, "decoder_vocab_size": 10,
    "dropout": 0.1, "encoder_attention_heads": 2, "encoder_ffn_dim": 16, "encoder_layerdrop": 0.0,
    "encoder_layers": 1, "eos_token_id": 0, "forced_eos_token_id": 0, "gradient_checkpointing": false,
    "id2label": {"0": "LABEL_0"}, "init_std": 0.02, "is_encoder_decoder": true, "label2id": {"LABEL_0": 0},
    "max_length": 512, "max_position_embeddings": 512, "model_type": "marian", "normalize_before": false,
    "normalize_embedding": false, "num_beams": 4, "num_hidden_layers": 1, "pad_token_id": 9,
    "scale_embedding": true, "share_encoder_decoder_embeddings": true, "static_position_embeddings": true,
    "torch_dtype": "float32", "transformers_version": "4.22.0.dev0", "use_cache": true, "vocab_size": 10})");
}

// One tensor of the weights file: its safetensors dtype, shape and raw bytes.
struct Raw {
  std::string dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

// A safetensors file written by hand (any dtype string, as foreign writers do).
void write_safetensors(const std::string& path, const std::map<std::string, Raw>& tensors) {
  Json header = Json::object();
  std::string data;
  for (const auto& [name, t] : tensors) {
    header[name] = {{"dtype", t.dtype},
                    {"shape", t.shape},
                    {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
    data += t.bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  write_file_atomic(path, out + text + data);
}

// Values k/16 with |k| < 32: exact in f16 and bf16, so every dtype gives the same f32 numbers.
Raw floats(const std::string& name, std::vector<int64_t> shape, const std::string& dtype) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const size_t seed = std::hash<std::string>{}(name);
  std::string bytes;
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(static_cast<int64_t>((seed + 7 * i) % 63) - 31) / 16.0f;
    if (dtype == "F32") {
      bytes.append(reinterpret_cast<const char*>(&v), 4);
    } else if (dtype == "F16") {
      const Half h(v);
      bytes.append(reinterpret_cast<const char*>(&h.bits), 2);
    } else {
      const BFloat16 h(v);
      bytes.append(reinterpret_cast<const char*>(&h.bits), 2);
    }
  }
  return {dtype, std::move(shape), bytes};
}

// The weights a MarianMTModel of config `c` saves, in `dtype`.
std::map<std::string, Raw> weights_of(const Json& c, const std::string& dtype) {
  const int64_t d = c["d_model"], f = c["encoder_ffn_dim"], v = c["vocab_size"];
  const int64_t tv = c.value("decoder_vocab_size", v);
  std::map<std::string, Raw> w;
  auto put = [&](const std::string& name, std::vector<int64_t> shape) {
    w[name] = floats(name, shape, dtype);
  };
  const bool share = c.value("share_encoder_decoder_embeddings", true);
  if (share) {
    put("model.shared.weight", {v, d});
  } else {
    put("model.encoder.embed_tokens.weight", {v, d});
    put("model.decoder.embed_tokens.weight", {tv, d});
  }
  if (!c.value("tie_word_embeddings", true)) put("lm_head.weight", {tv, d});
  put("final_logits_bias", {1, tv});
  auto attention = [&](const std::string& p) {
    for (const char* m : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
      put(p + "." + m + ".weight", {d, d});
      put(p + "." + m + ".bias", {d});
    }
  };
  auto norm = [&](const std::string& p) {
    put(p + ".weight", {d});
    put(p + ".bias", {d});
  };
  auto layer = [&](const std::string& p, bool cross) {
    attention(p + ".self_attn");
    norm(p + ".self_attn_layer_norm");
    if (cross) {
      attention(p + ".encoder_attn");
      norm(p + ".encoder_attn_layer_norm");
    }
    put(p + ".fc1.weight", {f, d});
    put(p + ".fc1.bias", {f});
    put(p + ".fc2.weight", {d, f});
    put(p + ".fc2.bias", {d});
    norm(p + ".final_layer_norm");
  };
  for (int i = 0; i < c["encoder_layers"].get<int>(); ++i)
    layer("model.encoder.layers." + std::to_string(i), false);
  for (int i = 0; i < c["decoder_layers"].get<int>(); ++i)
    layer("model.decoder.layers." + std::to_string(i), true);
  return w;
}

// vocab.json of n pieces with <unk> at 1 and <pad> at n - 1.
std::string vocab_json(int64_t n) {
  Json v = Json::object();
  for (int64_t i = 0; i < n; ++i)
    v[i == 0 ? "</s>" : i == 1 ? "<unk>" : i == n - 1 ? "<pad>" : "p" + std::to_string(i)] = i;
  return v.dump();
}

// A model directory: config.json, vocab.json (and target_vocab.json when not shared), weights.
void write_model(const TempDir& dir, const Json& c, const std::map<std::string, Raw>& w) {
  write_file_atomic(dir.file("config.json"), c.dump());
  write_file_atomic(dir.file("vocab.json"), vocab_json(c["vocab_size"]));
  if (!c.value("share_encoder_decoder_embeddings", true))
    write_file_atomic(dir.file("target_vocab.json"),
                      vocab_json(c.value("decoder_vocab_size", c["vocab_size"].get<int64_t>())));
  write_safetensors(dir.file("model.safetensors"), w);
}

Json with(Json c, const Json& overrides) {
  for (const auto& [k, v] : overrides.items()) c[k] = v;
  return c;
}

// The converted model as text: its config and every tensor's name, shape and values.
std::string model_text(const std::string& dir) {
  const ConvertedModel m = import_hf(dir);
  std::string s = m.config.to_yaml();
  for (const auto& [name, t] : m.tensors) {
    s += name + t.shape().str() + ":";
    for (float x : t.to_vector<float>()) s += std::to_string(x) + " ";
  }
  return s;
}

std::string convert(const Json& c, const std::string& dtype = "F32") {
  TempDir dir;
  write_model(dir, c, weights_of(c, dtype));
  return model_text(dir.path().string());
}

TEST(HfImport, Float16AndBFloat16WeightsReadAsFloat32) {
  const std::string f32 = convert(base_config());
  EXPECT_EQ(convert(base_config(), "F16"), f32);
  EXPECT_EQ(convert(base_config(), "BF16"), f32);
  // Mixed: an f16 file with one bf16 tensor.
  TempDir dir;
  auto w = weights_of(base_config(), "F16");
  w["model.shared.weight"] = floats("model.shared.weight", {10, 8}, "BF16");
  write_model(dir, base_config(), w);
  EXPECT_EQ(model_text(dir.path().string()), f32);
}

TEST(HfImport, UnusedIntegerBuffersAreSkippedAndNeededOnesRefused) {
  const std::string want = convert(base_config());
  TempDir dir;
  auto w = weights_of(base_config(), "F32");
  w["model.encoder.embed_positions.position_ids"] = {"I64", {1, 2}, std::string(16, '\0')};
  w["model.decoder.causal_mask"] = {"BOOL", {2}, std::string("\x01\x00", 2)};
  w["model.encoder.embed_positions.weight"] = floats("pos", {4, 8}, "F32");
  write_model(dir, base_config(), w);
  const std::string log_path = dir.file("convert.log");
  log::set_file(log_path);
  const log::Level level = log::level();
  log::set_level(log::Level::kDebug);
  const std::string got = model_text(dir.path().string());
  log::set_level(level);
  log::set_file("");
  EXPECT_EQ(got, want);
  const std::string log_text = read_file(log_path);
  for (const char* line : {"'model.encoder.embed_positions.position_ids' (I64) skipped",
                           "'model.decoder.causal_mask' (BOOL) skipped",
                           "'model.encoder.embed_positions.weight' ([4, 8]) not used"})
    EXPECT_NE(log_text.find(line), std::string::npos) << line << "\n" << log_text;

  w["model.encoder.layers.0.fc1.bias"] = {"I64", {16}, std::string(128, '\0')};
  write_model(dir, base_config(), w);
  const std::string e = error_of([&] { import_hf(dir.path().string()); });
  EXPECT_NE(e.find("tensor 'model.encoder.layers.0.fc1.bias' has dtype I64"), std::string::npos)
      << e;
}

// The weights split over two safetensors shards with the index transformers writes.
void write_sharded(const TempDir& dir, const Json& c, const std::map<std::string, Raw>& w) {
  write_model(dir, c, {});
  std::filesystem::remove(dir.file("model.safetensors"));
  std::map<std::string, Raw> a, b;
  Json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", Json::object()}};
  for (const auto& [name, t] : w) {
    const bool first = name.find("decoder") == std::string::npos;
    (first ? a : b)[name] = t;
    index["weight_map"][name] =
        first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  write_safetensors(dir.file("model-00001-of-00002.safetensors"), a);
  write_safetensors(dir.file("model-00002-of-00002.safetensors"), b);
  write_file_atomic(dir.file("model.safetensors.index.json"), index.dump());
}

TEST(HfImport, ShardedCheckpointsReadEveryShard) {
  const std::string want = convert(base_config());
  TempDir dir;
  auto w = weights_of(base_config(), "F16");
  write_sharded(dir, base_config(), w);
  EXPECT_EQ(model_text(dir.path().string()), want);

  // A tensor the index puts in a shard that lacks it.
  Json index = Json::parse(read_file(dir.file("model.safetensors.index.json")));
  index["weight_map"]["model.extra.weight"] = "model-00002-of-00002.safetensors";
  write_file_atomic(dir.file("model.safetensors.index.json"), index.dump());
  std::string e = error_of([&] { import_hf(dir.path().string()); });
  EXPECT_NE(
      e.find(
          "tensor 'model.extra.weight' in shard model-00002-of-00002.safetensors, which lacks it"),
      std::string::npos)
      << e;
  // A missing shard.
  write_sharded(dir, base_config(), w);
  std::filesystem::remove(dir.file("model-00002-of-00002.safetensors"));
  e = error_of([&] { import_hf(dir.path().string()); });
  EXPECT_NE(e.find("shard model-00002-of-00002.safetensors not found"), std::string::npos) << e;
  // A shard outside the directory.
  index["weight_map"]["model.extra.weight"] = "../elsewhere.safetensors";
  write_file_atomic(dir.file("model.safetensors.index.json"), index.dump());
  e = error_of([&] { import_hf(dir.path().string()); });
  EXPECT_NE(e.find("'../elsewhere.safetensors' of tensor 'model.extra.weight' is not a file in the "
                   "model directory"),
            std::string::npos)
      << e;
}

TEST(HfImport, EveryCheckedFieldIsRefusedWithItsName) {
  // A value realmt cannot honour for each checked field (and the used fields that refuse values).
  const std::map<std::string, Json> bad = {
      {"model_type", "bart"},
      {"forced_bos_token_id", 3},
      {"is_encoder_decoder", false},
      {"is_decoder", true},
      {"add_cross_attention", true},
      {"tie_encoder_decoder", true},
      {"normalize_before", true},
      {"add_final_layer_norm", true},
      {"normalize_embedding", true},
      {"static_position_embeddings", false},
      {"pruned_heads", {{"0", {1}}}},
      {"cross_attention_hidden_size", 16},
      {"hidden_size", 16},
      {"num_attention_heads", 4},
      {"num_hidden_layers", 2},
      {"architectures", {"MarianForCausalLM"}},
      {"activation_function", "tanh"},
      {"decoder_attention_heads", 4},
      {"decoder_ffn_dim", 32},
      {"eos_token_id", {0, 3}},
  };
  for (const HfField& f : hf_config_fields())
    if (f.role == HfFieldRole::kChecked) {
      EXPECT_TRUE(bad.count(f.name)) << "no refused value tested for " << f.name;
    }
  TempDir dir;
  for (const auto& [name, value] : bad) {
    const Json c = with(base_config(), {{name, value}});
    write_model(dir, c, weights_of(base_config(), "F32"));
    const std::string e = error_of([&] { import_hf(dir.path().string()); });
    EXPECT_NE(e.find(name), std::string::npos) << name << ": " << e;
    EXPECT_NE(e.find("config.json"), std::string::npos) << name << ": " << e;
  }
}

TEST(HfImport, EveryUsedFieldChangesTheModel) {
  // field -> (the baseline's overrides, the change).
  const std::map<std::string, std::pair<Json, Json>> changes = {
      {"d_model", {{}, {{"d_model", 16}, {"num_hidden_layers", nullptr}}}},
      {"encoder_layers", {{{"num_hidden_layers", nullptr}}, {{"encoder_layers", 2}}}},
      {"decoder_layers", {{}, {{"decoder_layers", 2}}}},
      {"encoder_attention_heads",
       {{}, {{"encoder_attention_heads", 4}, {"decoder_attention_heads", 4}}}},
      {"decoder_attention_heads",
       {{}, {{"encoder_attention_heads", 4}, {"decoder_attention_heads", 4}}}},
      {"encoder_ffn_dim", {{}, {{"encoder_ffn_dim", 32}, {"decoder_ffn_dim", 32}}}},
      {"decoder_ffn_dim", {{}, {{"encoder_ffn_dim", 32}, {"decoder_ffn_dim", 32}}}},
      {"activation_function", {{}, {{"activation_function", "relu"}}}},
      {"vocab_size",
       {{},
        {{"vocab_size", 12},
         {"decoder_vocab_size", 12},
         {"pad_token_id", 11},
         {"decoder_start_token_id", 11}}}},
      {"decoder_vocab_size",
       {{{"share_encoder_decoder_embeddings", false}}, {{"decoder_vocab_size", 12}}}},
      {"dropout", {{}, {{"dropout", 0.2}}}},
      {"attention_dropout", {{}, {{"attention_dropout", 0.1}}}},
      {"activation_dropout", {{}, {{"activation_dropout", 0.1}}}},
      {"scale_embedding", {{}, {{"scale_embedding", false}}}},
      {"share_encoder_decoder_embeddings", {{}, {{"share_encoder_decoder_embeddings", false}}}},
      {"tie_word_embeddings", {{}, {{"tie_word_embeddings", false}}}},
      {"pad_token_id", {{}, {{"pad_token_id", 8}}}},
      {"eos_token_id", {{}, {{"eos_token_id", 2}}}},
      {"decoder_start_token_id", {{}, {{"decoder_start_token_id", 2}}}},
  };
  for (const HfField& f : hf_config_fields())
    if (f.role == HfFieldRole::kUsed) {
      EXPECT_TRUE(changes.count(f.name)) << "no change tested for " << f.name;
    }
  for (const auto& [name, change] : changes) {
    const Json base = with(base_config(), change.first);
    EXPECT_TRUE(convert(base) != convert(with(base, change.second))) << name << " changes nothing";
  }
}

TEST(HfImport, EosDefaultAndUnknownFields) {
  TempDir dir;
  write_file_atomic(dir.file("config.json"), base_config().dump());
  EXPECT_TRUE(read_hf_config(dir.file("config.json"))
                  .unknown.empty());  // a real config has no unknown field
  Json c = base_config();
  c.erase("eos_token_id");
  c["decoder_start_token_id"] = 9;
  c["eos_token_id_typo"] = 5;
  write_file_atomic(dir.file("config.json"), c.dump());
  const std::string log_path = dir.file("convert.log");
  log::set_file(log_path);
  const HfConfig h = read_hf_config(dir.file("config.json"));
  log::set_file("");
  EXPECT_EQ(h.model.eos_id, 0);  // MarianConfig's default
  EXPECT_EQ(h.unknown, std::vector<std::string>{"eos_token_id_typo"});
  EXPECT_NE(read_file(log_path).find("left unread: eos_token_id_typo"), std::string::npos);
  c["eos_token_id"] = {2};
  write_file_atomic(dir.file("config.json"), c.dump());
  EXPECT_EQ(read_hf_config(dir.file("config.json")).model.eos_id, 2);
  c.erase("pad_token_id");
  write_file_atomic(dir.file("config.json"), c.dump());
  EXPECT_NE(
      error_of([&] { read_hf_config(dir.file("config.json")); }).find("'pad_token_id' missing"),
      std::string::npos);
}

}  // namespace
}  // namespace realmt::convert
