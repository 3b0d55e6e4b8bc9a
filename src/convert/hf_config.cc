#include "convert/hf_config.h"

#include <climits>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "common/atomic_file.h"
#include "core/error.h"
#include "core/log.h"

namespace realmt::convert {
namespace {

using Json = nlohmann::json;
using Accepts = std::function<bool(const Json& value, const Json& config)>;

struct Rule {
  HfField field;
  Accepts accepts;  // kChecked only: the values realmt can honour (null always is: the default)
};

Accepts equals(Json want) {
  return [want](const Json& v, const Json&) { return v == want; };
}
// An alias transformers' attribute_map resolves to another field: it must agree with it.
Accepts same_as(const char* other) {
  return [other](const Json& v, const Json& c) { return c.contains(other) && v == c[other]; };
}

constexpr HfFieldRole kUsed = HfFieldRole::kUsed, kIgnored = HfFieldRole::kIgnored,
                      kChecked = HfFieldRole::kChecked;
constexpr const char* kGeneration =
    "a generation default of transformers' generate(); realmt-translate takes its own options "
    "(--beam-size, "
    "--normalize, --max-length-factor, ...)";
constexpr const char* kRuntime =
    "a PyTorch runtime switch or provenance record; the numbers do not depend on it";
constexpr const char* kClassifier =
    "a setting of BART's classification heads, which MarianMTModel does not have";

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = [] {
    std::vector<Rule> t = {
        // The model.
        {{"model_type", kChecked,
          "must be 'marian': realmt-convert reads MarianMTModel directories"},
         equals("marian")},
        {{"d_model", kUsed, "model dimension D (dim-emb)"}, nullptr},
        {{"encoder_layers", kUsed, "encoder depth"}, nullptr},
        {{"decoder_layers", kUsed, "decoder depth"}, nullptr},
        {{"encoder_attention_heads", kUsed, "heads H"}, nullptr},
        {{"decoder_attention_heads", kUsed,
          "must equal encoder_attention_heads: realmt has one head count"},
         nullptr},
        {{"encoder_ffn_dim", kUsed, "feed-forward size F"}, nullptr},
        {{"decoder_ffn_dim", kUsed, "must equal encoder_ffn_dim: realmt has one feed-forward size"},
         nullptr},
        {{"activation_function", kUsed,
          "swish/silu, gelu (exact, erf) or relu; others are refused"},
         nullptr},
        {{"vocab_size", kUsed, "source vocabulary size (vocab.json must have as many pieces)"},
         nullptr},
        {{"decoder_vocab_size", kUsed, "target vocabulary size (vocab_size when absent)"}, nullptr},
        {{"dropout", kUsed,
          "dropout of the sub-layer outputs (for fine-tuning the converted model)"},
         nullptr},
        {{"attention_dropout", kUsed, "dropout of the attention weights"}, nullptr},
        {{"activation_dropout", kUsed, "dropout after the feed-forward activation"}, nullptr},
        {{"scale_embedding", kUsed,
          "embeddings times sqrt(D) (false when absent, as in MarianConfig)"},
         nullptr},
        {{"share_encoder_decoder_embeddings", kUsed, "one embedding table for source and target"},
         nullptr},
        {{"tie_word_embeddings", kUsed,
          "the target table is the output projection (else lm_head.weight)"},
         nullptr},
        {{"max_position_embeddings", kIgnored,
          "the size of transformers' sinusoid table; realmt computes the same sinusoids for any "
          "length"},
         nullptr},
        {{"init_std", kIgnored, "initialisation only: the weights are given"}, nullptr},
        {{"encoder_layerdrop", kIgnored,
          "LayerDrop acts in training only; realmt has none (fine-tuning runs without)"},
         nullptr},
        {{"decoder_layerdrop", kIgnored,
          "LayerDrop acts in training only; realmt has none (fine-tuning runs without)"},
         nullptr},
        {{"use_cache", kIgnored, "realmt's decoder always keeps its key/value cache"}, nullptr},
        {{"chunk_size_feed_forward", kIgnored,
          "computing the feed-forward in chunks gives the same numbers"},
         nullptr},
        {{"add_bias_logits", kIgnored,
          "a BART flag MarianMTModel does not read: it always adds final_logits_bias, and realmt "
          "does when the "
          "weights hold a non-zero one"},
         nullptr},
        // Ids.
        {{"pad_token_id", kUsed,
          "padding id, required (also the decoder's start when decoder_start_token_id is absent)"},
         nullptr},
        {{"eos_token_id", kUsed,
          "end-of-sentence id; 0 when absent (MarianConfig's default); a list must hold one"},
         nullptr},
        {{"decoder_start_token_id", kUsed, "the decoder's first input (pad_token_id when absent)"},
         nullptr},
        {{"bos_token_id", kIgnored,
          "Marian models have no begin token: decoding starts from decoder_start_token_id"},
         nullptr},
        {{"sep_token_id", kIgnored,
          "a separator for sentence pairs, which translation does not use"},
         nullptr},
        {{"forced_eos_token_id", kIgnored,
          "generate() forces eos at its length limit; realmt's search ends at --max-length-factor "
          "with its own rule"},
         nullptr},
        {{"forced_bos_token_id", kChecked,
          "must be null: generate() would force this first output token, which realmt's search "
          "cannot do"},
         equals(nullptr)},
        // Architecture flags realmt implements one way.
        {{"is_encoder_decoder", kChecked, "must be true: realmt's model is an encoder-decoder"},
         equals(true)},
        {{"is_decoder", kChecked,
          "must be false: a decoder-only model (MarianForCausalLM) has no encoder"},
         equals(false)},
        {{"add_cross_attention", kChecked, "must be false: a flag of decoder-only models"},
         equals(false)},
        {{"tie_encoder_decoder", kChecked,
          "must be false: tied encoder and decoder layers are stored once, which realmt does not "
          "unfold"},
         equals(false)},
        {{"normalize_before", kChecked,
          "must be false: pre-norm layers (an old BART variant) are not the post-norm "
          "MarianMTModel"},
         equals(false)},
        {{"add_final_layer_norm", kChecked, "must be false: MarianMTModel has no final layer norm"},
         equals(false)},
        {{"normalize_embedding", kChecked,
          "must be false: MarianMTModel has no embedding layer norm"},
         equals(false)},
        {{"static_position_embeddings", kChecked,
          "must be true: realmt reads sinusoidal positions, not a learned position table"},
         equals(true)},
        {{"pruned_heads", kChecked,
          "must be empty: pruned attention heads change the layers' shapes"},
         [](const Json& v, const Json&) { return v.is_object() && v.empty(); }},
        {{"cross_attention_hidden_size", kChecked,
          "must be null or d_model: a projection realmt does not have"},
         same_as("d_model")},
        {{"hidden_size", kChecked, "an alias of d_model: must agree with it"}, same_as("d_model")},
        {{"num_attention_heads", kChecked,
          "an alias of encoder_attention_heads: must agree with it"},
         same_as("encoder_attention_heads")},
        {{"num_hidden_layers", kChecked, "an alias of encoder_layers: must agree with it"},
         same_as("encoder_layers")},
        {{"architectures", kChecked,
          "MarianMTModel or MarianModel: other heads are not a translation model"},
         [](const Json& v, const Json&) {
           if (!v.is_array()) return false;
           for (const Json& a : v)
             if (a != "MarianMTModel" && a != "MarianModel") return false;
           return true;
         }},
    };
    for (const char* name : {"torch_dtype", "dtype"})
      t.push_back({{name, kIgnored,
                    "the weights' own dtypes decide: realmt reads f16, bf16 and f64 as f32"},
                   nullptr});
    for (const char* name :
         {"return_dict", "output_hidden_states", "output_attentions", "torchscript", "use_bfloat16",
          "tf_legacy_loss", "gradient_checkpointing", "_attn_implementation", "attn_implementation",
          "_attn_implementation_autoset", "_commit_hash", "_name_or_path", "transformers_version",
          "tokenizer_class", "prefix", "task_specific_params", "output_scores",
          "return_dict_in_generate"})
      t.push_back({{name, kIgnored, kRuntime}, nullptr});
    for (const char* name : {"classifier_dropout", "classif_dropout", "num_labels", "_num_labels",
                             "id2label", "label2id", "problem_type", "finetuning_task"})
      t.push_back({{name, kIgnored, kClassifier}, nullptr});
    for (const char* name : {"max_length",
                             "min_length",
                             "do_sample",
                             "early_stopping",
                             "num_beams",
                             "num_beam_groups",
                             "diversity_penalty",
                             "temperature",
                             "top_k",
                             "top_p",
                             "typical_p",
                             "repetition_penalty",
                             "length_penalty",
                             "no_repeat_ngram_size",
                             "encoder_no_repeat_ngram_size",
                             "bad_words_ids",
                             "num_return_sequences",
                             "remove_invalid_values",
                             "exponential_decay_length_penalty",
                             "suppress_tokens",
                             "begin_suppress_tokens"})
      t.push_back({{name, kIgnored, kGeneration}, nullptr});
    return t;
  }();
  return table;
}

Json read_json(const std::string& path) {
  REALMT_CHECK(std::filesystem::is_regular_file(path), "{} not found", path);
  try {
    return Json::parse(read_file(path));
  } catch (const Json::exception& e) {
    REALMT_FAIL("{}: not valid JSON: {}", path, e.what());
  }
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

// The checked fields' values, and the fields the table lacks.
std::vector<std::string> check_fields(const Json& c, const std::string& path) {
  std::set<std::string> known;
  for (const Rule& r : rules()) {
    known.insert(r.field.name);
    if (r.field.role != kChecked || !c.contains(r.field.name) || c[r.field.name].is_null())
      continue;
    REALMT_CHECK(r.accepts(c[r.field.name], c), "{}: {} {} is refused: {}", path, r.field.name,
                 c[r.field.name].dump(), r.field.note);
  }
  std::vector<std::string> unknown;
  for (const auto& [key, value] : c.items())
    if (!known.count(key)) unknown.push_back(key);
  return unknown;
}

// eos_token_id: an integer, or a list of one (transformers allows several; realmt ends at one).
int64_t eos_id(const Json& c, const std::string& path) {
  if (!c.contains("eos_token_id") || c["eos_token_id"].is_null()) return 0;
  const Json& e = c["eos_token_id"];
  if (e.is_array()) {
    REALMT_CHECK(e.size() == 1 && e[0].is_number_integer(),
                 "{}: eos_token_id {} is refused: realmt's search ends at one end-of-sentence id",
                 path, e.dump());
    return e[0].get<int64_t>();
  }
  REALMT_CHECK(e.is_number_integer() && e.get<int64_t>() >= 0 && e.get<int64_t>() <= INT32_MAX,
               "{}: eos_token_id {} is not an id", path, e.dump());
  return e.get<int64_t>();
}

ops::Activation activation(const Json& c, const std::string& path) {
  const std::string act = field<std::string>(c, "activation_function", "gelu", path);
  if (act == "swish" || act == "silu") return ops::Activation::kSwish;
  if (act == "gelu") return ops::Activation::kGelu;
  if (act == "relu") return ops::Activation::kRelu;
  REALMT_FAIL(
      "{}: activation_function '{}' is refused: realmt has swish (silu), gelu (exact) and relu",
      path, act);
}

}  // namespace

const std::vector<HfField>& hf_config_fields() {
  static const std::vector<HfField> fields = [] {
    std::vector<HfField> f;
    for (const Rule& r : rules()) f.push_back(r.field);
    return f;
  }();
  return fields;
}

HfConfig read_hf_config(const std::string& cpath) {
  const Json c = read_json(cpath);
  REALMT_CHECK(c.is_object(), "{}: a JSON object is needed", cpath);
  const std::string type = field<std::string>(c, "model_type", "", cpath);
  REALMT_CHECK(type == "marian",
               "{}: model_type '{}': realmt-convert reads Hugging Face MarianMTModel directories "
               "(model_type marian)",
               cpath, type);
  HfConfig h;
  h.unknown = check_fields(c, cpath);
  if (!h.unknown.empty()) {
    std::string names;
    for (const std::string& n : h.unknown) names += (names.empty() ? "" : ", ") + n;
    log::warn("{}: fields realmt-convert does not know, left unread: {}", cpath, names);
  }
  auto need = [&](const std::string& key) {
    REALMT_CHECK(c.contains(key) && c[key].is_number_integer(), "{}: integer field '{}' missing",
                 cpath, key);
    const int64_t v = c[key].get<int64_t>();
    REALMT_CHECK(v >= 0 && v <= INT32_MAX, "{}: field '{}' is {}, out of range", cpath, key, v);
    return v;
  };
  models::ModelConfig& mc = h.model;
  mc.dim_emb = need("d_model");
  mc.enc_depth = static_cast<int>(need("encoder_layers"));
  mc.dec_depth = static_cast<int>(need("decoder_layers"));
  mc.heads = static_cast<int>(need("encoder_attention_heads"));
  REALMT_CHECK(need("decoder_attention_heads") == mc.heads,
               "{}: encoder_attention_heads {} and decoder_attention_heads {} differ; realmt has "
               "one head count",
               cpath, mc.heads, need("decoder_attention_heads"));
  mc.dim_ffn = need("encoder_ffn_dim");
  REALMT_CHECK(
      need("decoder_ffn_dim") == mc.dim_ffn,
      "{}: encoder_ffn_dim {} and decoder_ffn_dim {} differ; realmt has one feed-forward size",
      cpath, mc.dim_ffn, need("decoder_ffn_dim"));
  mc.ffn_activation = activation(c, cpath);
  mc.vocab_size = need("vocab_size");
  h.target_vocab = c.contains("decoder_vocab_size") && !c["decoder_vocab_size"].is_null()
                       ? need("decoder_vocab_size")
                       : mc.vocab_size;
  mc.target_vocab_size = h.target_vocab == mc.vocab_size ? 0 : h.target_vocab;
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
  h.share = field<bool>(c, "share_encoder_decoder_embeddings", true, cpath);
  h.tie = field<bool>(c, "tie_word_embeddings", true, cpath);
  mc.tied_embeddings_all = h.share && h.tie;
  mc.tied_embeddings_src = h.share && !h.tie;
  mc.tied_embeddings = !h.share && h.tie;
  mc.pad_id = static_cast<int>(need("pad_token_id"));
  mc.eos_id = static_cast<int>(eos_id(c, cpath));
  mc.decoder_start_id = static_cast<int>(c.contains("decoder_start_token_id") &&
                                                 !c["decoder_start_token_id"].is_null()
                                             ? need("decoder_start_token_id")
                                             : mc.pad_id);
  mc.dim_vocabs.clear();
  return h;
}

}  // namespace realmt::convert
