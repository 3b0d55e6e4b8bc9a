#include "convert/hf_names.h"

#include "core/error.h"

namespace realmt::convert {
namespace {

using models::Field;
using models::Part;
using models::Role;
using models::Stack;
using models::Sublayer;

// The module of a layer ("model.decoder.layers.0") and of a sub-layer's attention.
std::string hf_layer(const Role& r) {
  return std::string(r.stack == Stack::kEncoder ? "model.encoder" : "model.decoder") + ".layers." +
         std::to_string(r.layer);
}

// The norm after each sub-layer (MarianMTModel is Post-LN).
std::string hf_norm(const Role& r) {
  switch (r.sublayer) {
    case Sublayer::kSelfAttn: return hf_layer(r) + ".self_attn_layer_norm";
    case Sublayer::kCrossAttn: return hf_layer(r) + ".encoder_attn_layer_norm";
    case Sublayer::kFfn: return hf_layer(r) + ".final_layer_norm";
    case Sublayer::kNone: break;
  }
  REALMT_ASSERT(false);
  return "";
}

// The Linear modules that make a realmt projection, in column order.
std::vector<std::string> hf_linears(const Role& r) {
  const std::string attn =
      hf_layer(r) + (r.sublayer == Sublayer::kCrossAttn ? ".encoder_attn" : ".self_attn");
  switch (r.part) {
    case Part::kQkv: return {attn + ".q_proj", attn + ".k_proj", attn + ".v_proj"};
    case Part::kQ: return {attn + ".q_proj"};
    case Part::kKv: return {attn + ".k_proj", attn + ".v_proj"};
    case Part::kO: return {attn + ".out_proj"};
    case Part::kW1: return {hf_layer(r) + ".fc1"};
    case Part::kW2: return {hf_layer(r) + ".fc2"};
    default: break;
  }
  REALMT_ASSERT(false);
  return {};
}

}  // namespace

HfMapping hf_mapping(const models::LayoutEntry& e) {
  using Kind = HfMapping::Kind;
  const Role& r = e.role;
  if (r.stack == Stack::kNone) return {Kind::kTable, {}, false, ""};
  if (r.part == Part::kOmega)
    return {Kind::kNone, {}, false, "MarianMTModel has no ADMIN residual scales"};
  if (r.layer < 0)
    return {Kind::kNone, {}, false, "MarianMTModel is Post-LN: it has no final layer norm"};
  if (r.part == Part::kNorm)
    return {Kind::kParameter,
            {hf_norm(r) + (r.field == Field::kGamma ? ".weight" : ".bias")},
            false,
            ""};
  const bool weight = r.field == Field::kWeight;
  HfMapping m{Kind::kParameter, {}, weight, ""};
  for (const std::string& linear : hf_linears(r))
    m.tensors.push_back(linear + (weight ? ".weight" : ".bias"));
  return m;
}

}  // namespace realmt::convert
