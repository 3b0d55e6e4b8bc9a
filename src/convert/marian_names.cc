#include "convert/marian_names.h"

#include "core/error.h"

namespace realmt::convert {
namespace {

using models::Field;
using models::Part;
using models::Role;
using models::Stack;
using models::Sublayer;

// Marian's prefix of a sub-layer, e.g. "decoder_l1_context" (its layers count from 1).
std::string marian_scope(const Role& r) {
  const std::string layer = std::string(r.stack == Stack::kEncoder ? "encoder" : "decoder") + "_l" +
                            std::to_string(r.layer + 1);
  return layer + (r.sublayer == Sublayer::kSelfAttn    ? "_self"
                  : r.sublayer == Sublayer::kCrossAttn ? "_context"
                                                       : "_ffn");
}

// The letters of Marian's projections that make a realmt projection (Q|K|V: q, k, v).
std::vector<std::string> projections(Part p) {
  switch (p) {
    case Part::kQkv: return {"q", "k", "v"};
    case Part::kQ: return {"q"};
    case Part::kKv: return {"k", "v"};
    case Part::kO: return {"o"};
    case Part::kW1: return {"1"};
    case Part::kW2: return {"2"};
    default: break;
  }
  REALMT_ASSERT(false);
  return {};
}

MarianParameter layer_parameter(const models::LayoutEntry& e, const models::ModelConfig& c) {
  const Role& r = e.role;
  if (r.layer < 0) {  // Pre-LN's final norm: encoder_top_ln_scale, ...
    const std::string side = r.stack == Stack::kEncoder ? "encoder" : "decoder";
    return {e.name, {side + (r.field == Field::kGamma ? "_top_ln_scale" : "_top_ln_bias")}, true};
  }
  const std::string mp = marian_scope(r);
  if (r.part == Part::kNorm) {
    const std::string ln = c.norm == models::Norm::kPre ? "_pre" : "";  // Marian's preprocess norms
    const std::string kind = r.sublayer == Sublayer::kFfn ? "_ffn_ln_" : "_Wo_ln_";
    return {e.name, {mp + kind + (r.field == Field::kGamma ? "scale" : "bias") + ln}, true};
  }
  const bool bias = r.field == Field::kBias;
  MarianParameter p{e.name, {}, bias};
  for (const std::string& x : projections(r.part))
    p.marian.push_back(mp + "_" + (bias ? "b" : "W") + x);
  return p;
}

}  // namespace

MarianMapping marian_mapping(const models::LayoutEntry& e, const models::ModelConfig& c) {
  using Kind = MarianMapping::Kind;
  if (e.role.stack == Stack::kNone) return {Kind::kTable, {}, ""};
  if (e.role.part == Part::kOmega)
    return {Kind::kNone,
            {},
            "ADMIN's omega scales the residual, which Marian's transformer cannot express"};
  return {Kind::kParameter, layer_parameter(e, c), ""};
}

std::vector<MarianParameter> marian_layer_parameters(const models::ModelConfig& c) {
  std::vector<MarianParameter> out;
  for (const models::LayoutEntry& e : models::Layout(c).entries()) {
    const MarianMapping m = marian_mapping(e, c);
    REALMT_CHECK(m.kind != MarianMapping::Kind::kNone, "{}: Marian has no such parameter: {}",
                 e.name, m.reason);
    if (m.kind == MarianMapping::Kind::kParameter) out.push_back(m.parameter);
  }
  return out;
}

}  // namespace realmt::convert
