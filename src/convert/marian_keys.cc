#include "convert/marian_keys.h"

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>

#include "core/error.h"

namespace realmt::convert {
namespace {

using Accept = std::function<bool(const YAML::Node&)>;

bool is_false(const YAML::Node& n) { return n.IsNull() || !n.as<bool>(); }
bool is_empty(const YAML::Node& n) {
  return n.IsNull() || (n.IsSequence() && n.size() == 0) || (n.IsScalar() && n.Scalar().empty());
}
bool is_zero(const YAML::Node& n) { return n.IsNull() || n.as<double>() == 0.0; }
Accept equals(std::string v) {
  return [v](const YAML::Node& n) { return n.IsScalar() && n.Scalar() == v; };
}

struct Entry {
  MarianKey key;
  Accept accept;  // kRefused: the values realmt implements
};

const std::string kRnn =
    "RNN models only (type s2s, amun, nematus: refused); a transformer's layers follow the "
    "transformer-* keys";
const std::string kAan =
    "average-attention decoder layers only (transformer-decoder-autoreg average-attention: "
    "refused)";
const std::string kUlr = "ULR only (ulr: refused when true)";
const std::string kTraining = "training only (dropout, initialisation): no effect on translations";
const std::string kFactors =
    "factored vocabularies only (lemma-dim-emb, factors-dim-emb, .fsv vocabularies: refused)";

std::vector<Entry> make_table() {
  auto read = [](const char* k) { return Entry{{k, MarianKeyUse::kRead, ""}, nullptr}; };
  auto noop = [](const char* k, const std::string& why) {
    return Entry{{k, MarianKeyUse::kNoOp, why}, nullptr};
  };
  auto refuse = [](const char* k, Accept a, const std::string& why) {
    return Entry{{k, MarianKeyUse::kRefused, why}, std::move(a)};
  };
  return {
      read("type"),
      read("dim-emb"),
      read("dim-vocabs"),
      read("enc-depth"),
      read("dec-depth"),
      read("tied-embeddings"),
      read("tied-embeddings-all"),
      read("tied-embeddings-src"),
      read("transformer-heads"),
      read("transformer-dim-ffn"),
      read("transformer-decoder-dim-ffn"),
      read("transformer-ffn-depth"),
      read("transformer-decoder-ffn-depth"),
      read("transformer-ffn-activation"),
      read("transformer-preprocess"),
      read("transformer-postprocess"),
      read("transformer-postprocess-emb"),
      read("transformer-postprocess-top"),
      read("output-omit-bias"),
      read("transformer-dropout"),
      read("transformer-train-positions"),
      noop("version", "the Marian version that wrote the model"),
      noop("bert-train-type-embeddings", "BERT models only (type bert: refused)"),
      noop("bert-type-vocab-size", "BERT models only (type bert: refused)"),
      noop("dec-cell", kRnn),
      noop("dec-cell-base-depth", kRnn),
      noop("dec-cell-high-depth", kRnn),
      noop("enc-cell", kRnn),
      noop("enc-cell-depth", kRnn),
      noop("enc-type", kRnn),
      noop("dim-rnn", kRnn),
      noop("layer-normalization", kRnn),
      noop("skip", kRnn),
      noop("transformer-rnn-projection",
           "RNN decoder layers only (transformer-decoder-autoreg rnn: refused)"),
      noop("transformer-aan-activation", kAan),
      noop("transformer-aan-depth", kAan),
      noop("transformer-aan-nogate", kAan),
      noop("transformer-dim-aan", kAan),
      noop("transformer-guided-alignment-layer",
           "guided-alignment training and alignment output only"),
      noop("transformer-depth-scaling", kTraining),
      noop("transformer-dropout-attention", kTraining),
      noop("transformer-dropout-ffn", kTraining),
      noop("transformer-train-position-embeddings",
           "Marian's transformer reads another key (transformer-train-positions) for learned "
           "positions: with this "
           "one it keeps sinusoidal positions and makes no Wpos table"),
      noop("factors-combine", kFactors),
      noop("separator-symbol", "multi-field inputs (COMET types: refused) only"),
      noop("ulr-dim-emb", kUlr),
      noop("ulr-trainable-transformation", kUlr),
      noop("ulr-dropout", kUlr),
      noop("ulr-keys-vectors", kUlr),
      noop("ulr-query-vectors", kUlr),
      noop("ulr-softmax-temperature", kUlr),
      refuse("transformer-decoder-autoreg", equals("self-attention"),
             "average-attention and RNN (SSRU) decoder layers are not implemented"),
      refuse("transformer-no-projection", is_false,
             "attention without its output projection is not implemented"),
      refuse("right-left", is_false, "right-to-left models (reversed outputs) are not implemented"),
      refuse("transformer-tied-layers", is_empty,
             "decoder layers that share parameters are not implemented"),
      refuse("transformer-alibi-shift", is_false, "ALiBi attention biases are not implemented"),
      refuse("transformer-alibi-trainable", is_false, "ALiBi attention biases are not implemented"),
      refuse("transformer-attention-mask", equals("default"),
             "attention masks other than default are not implemented"),
      refuse("transformer-disable-position-embeddings", is_false,
             "a transformer without positions is not implemented"),
      refuse("transformer-no-affine", is_false,
             "layer norms without scale and bias are not implemented"),
      refuse("transformer-no-bias", is_false, "projections without biases are not implemented"),
      refuse("transformer-pool", is_false, "pooling (classifier) transformers are not implemented"),
      refuse("ulr", is_false, "ULR (universal lexical representations) is not implemented"),
      refuse("input-types", is_empty, "typed (multi-field) inputs are not implemented"),
      refuse("lemma-dim-emb", is_zero, "factored outputs are not implemented"),
      refuse("lemma-dependency", is_empty, "factored outputs are not implemented"),
      refuse("factors-dim-emb", is_zero, "factored inputs are not implemented"),
  };
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = make_table();
  return t;
}

std::string value_text(const YAML::Node& n) {
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

}  // namespace

const std::vector<MarianKey>& marian_keys() {
  static const std::vector<MarianKey> keys = [] {
    std::vector<MarianKey> v;
    for (const Entry& e : table()) v.push_back(e.key);
    return v;
  }();
  return keys;
}

void check_marian_keys(const YAML::Node& config, const std::string& where) {
  std::map<std::string, const Entry*> by_name;
  for (const Entry& e : table()) by_name[e.key.name] = &e;
  for (const auto& kv : config) {
    const std::string key = kv.first.as<std::string>();
    const auto it = by_name.find(key);
    REALMT_CHECK(it != by_name.end(),
                 "{}: key '{}' is not one realmt knows; it may change the arithmetic, so the "
                 "model is refused",
                 where, key);
    const Entry& e = *it->second;
    if (e.key.use != MarianKeyUse::kRefused) continue;
    bool ok = false;
    try {
      ok = e.accept(kv.second);
    } catch (const YAML::Exception&) {
    }
    REALMT_CHECK(ok, "{}: {}: {}: {}", where, key, value_text(kv.second), e.key.reason);
  }
}

}  // namespace realmt::convert
