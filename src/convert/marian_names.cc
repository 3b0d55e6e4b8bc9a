#include "convert/marian_names.h"

namespace realmt::convert {
namespace {

void attention(std::vector<MarianParameter>& out, const std::string& mp, const std::string& rm, bool self,
               const std::string& ln) {
  auto names = [&](const char* kind, std::initializer_list<const char*> parts) {
    std::vector<std::string> v;
    for (const char* p : parts) v.push_back(mp + "_" + kind + p);
    return v;
  };
  if (self) {
    out.push_back({rm + ".qkv.weight", names("W", {"q", "k", "v"})});
    out.push_back({rm + ".qkv.bias", names("b", {"q", "k", "v"}), true});
  } else {
    out.push_back({rm + ".q.weight", names("W", {"q"})});
    out.push_back({rm + ".q.bias", names("b", {"q"}), true});
    out.push_back({rm + ".kv.weight", names("W", {"k", "v"})});
    out.push_back({rm + ".kv.bias", names("b", {"k", "v"}), true});
  }
  out.push_back({rm + ".o.weight", {mp + "_Wo"}});
  out.push_back({rm + ".o.bias", {mp + "_bo"}, true});
  out.push_back({rm + ".norm.gamma", {mp + "_Wo_ln_scale" + ln}, true});
  out.push_back({rm + ".norm.beta", {mp + "_Wo_ln_bias" + ln}, true});
}

void ffn(std::vector<MarianParameter>& out, const std::string& mp, const std::string& rm, const std::string& ln) {
  out.push_back({rm + ".w1.weight", {mp + "_W1"}});
  out.push_back({rm + ".w1.bias", {mp + "_b1"}, true});
  out.push_back({rm + ".w2.weight", {mp + "_W2"}});
  out.push_back({rm + ".w2.bias", {mp + "_b2"}, true});
  out.push_back({rm + ".norm.gamma", {mp + "_ffn_ln_scale" + ln}, true});
  out.push_back({rm + ".norm.beta", {mp + "_ffn_ln_bias" + ln}, true});
}

}  // namespace

std::vector<MarianParameter> marian_layer_parameters(const models::ModelConfig& c) {
  std::vector<MarianParameter> out;
  const std::string ln = c.norm == models::Norm::kPre ? "_pre" : "";  // Marian's preprocess norms
  for (int i = 0; i < c.enc_depth; ++i) {
    const std::string mp = "encoder_l" + std::to_string(i + 1), rm = "encoder.layers." + std::to_string(i);
    attention(out, mp + "_self", rm + ".self_attn", true, ln);
    ffn(out, mp + "_ffn", rm + ".ffn", ln);
  }
  for (int i = 0; i < c.dec_depth; ++i) {
    const std::string mp = "decoder_l" + std::to_string(i + 1), rm = "decoder.layers." + std::to_string(i);
    attention(out, mp + "_self", rm + ".self_attn", true, ln);
    attention(out, mp + "_context", rm + ".cross_attn", false, ln);
    ffn(out, mp + "_ffn", rm + ".ffn", ln);
  }
  return out;
}

}  // namespace realmt::convert
