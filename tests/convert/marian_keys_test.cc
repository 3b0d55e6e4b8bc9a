// marian_keys: every key of a Marian model's config is read, a no-op or refused; unknown keys are
// refused, and refusals name the key, its value and the reason.
#include "convert/marian_keys.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "core/error.h"

namespace realmt::convert {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    check_marian_keys(YAML::Load(yaml), "m.npz");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The keys Marian 1.12.42 writes for a transformer (its special:model.yml, as in the fixtures).
const char* kMarian1_12 = R"(bert-train-type-embeddings: true
bert-type-vocab-size: 2
dec-cell: gru
dec-cell-base-depth: 2
dec-cell-high-depth: 1
dec-depth: 1
dim-emb: 16
dim-rnn: 1024
dim-vocabs: [32, 32]
enc-cell: gru
enc-cell-depth: 1
enc-depth: 1
enc-type: bidirectional
factors-combine: sum
factors-dim-emb: 0
input-types: []
layer-normalization: false
lemma-dependency: ""
lemma-dim-emb: 0
output-omit-bias: false
right-left: false
separator-symbol: "[eos]"
skip: false
tied-embeddings: false
tied-embeddings-all: false
tied-embeddings-src: false
transformer-aan-activation: swish
transformer-aan-depth: 2
transformer-aan-nogate: false
transformer-alibi-shift: false
transformer-alibi-trainable: false
transformer-attention-mask: default
transformer-decoder-autoreg: self-attention
transformer-decoder-dim-ffn: 0
transformer-decoder-ffn-depth: 0
transformer-dim-aan: 2048
transformer-dim-ffn: 32
transformer-disable-position-embeddings: false
transformer-ffn-activation: gelu
transformer-ffn-depth: 2
transformer-guided-alignment-layer: last
transformer-heads: 2
transformer-no-affine: false
transformer-no-bias: false
transformer-no-projection: false
transformer-pool: false
transformer-postprocess: da
transformer-postprocess-emb: d
transformer-postprocess-top: n
transformer-preprocess: n
transformer-rnn-projection: false
transformer-tied-layers: []
transformer-train-position-embeddings: true
type: transformer
ulr: false
ulr-dim-emb: 0
ulr-trainable-transformation: false
version: v1.12.42 b7be0e964 2025-05-24 22:34:42 -0700
)";

TEST(MarianKeys, Marian112ConfigPasses) { EXPECT_EQ(error_of(kMarian1_12), ""); }

TEST(MarianKeys, EveryKeyOnceWithAReasonUnlessRead) {
  std::set<std::string> seen;
  for (const MarianKey& k : marian_keys()) {
    EXPECT_TRUE(seen.insert(k.name).second) << k.name << " twice";
    EXPECT_EQ(k.use == MarianKeyUse::kRead, k.reason.empty()) << k.name;
  }
}

TEST(MarianKeys, UnknownKeyIsRefusedByName) {
  const std::string e = error_of(std::string(kMarian1_12) + "transformer-rotary: true\n");
  EXPECT_NE(e.find("m.npz"), std::string::npos) << e;
  EXPECT_NE(e.find("'transformer-rotary'"), std::string::npos) << e;
}

TEST(MarianKeys, RefusedValuesNameKeyValueAndReason) {
  for (const auto& [line, reason] : std::vector<std::pair<std::string, std::string>>{
           {"ulr: true", "ULR"},
           {"transformer-decoder-autoreg: rnn", "RNN (SSRU)"},
           {"lemma-dim-emb: 8", "factored outputs"},
           {"transformer-tied-layers: [1, 1]", "share parameters"},
           {"transformer-no-bias: true", "without biases"}}) {
    std::string yaml = kMarian1_12;
    const std::string key = line.substr(0, line.find(':'));
    const size_t at = yaml.find(key + ":");
    if (at != std::string::npos) yaml.erase(at, yaml.find('\n', at) - at + 1);
    const std::string e = error_of(yaml + line + "\n");
    EXPECT_NE(e.find(key), std::string::npos) << e;
    EXPECT_NE(e.find(reason), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace realmt::convert
