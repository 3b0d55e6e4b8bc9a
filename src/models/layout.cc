#include "models/layout.h"

#include <cmath>

#include "core/error.h"
#include "layers/init.h"
#include "models/admin.h"

namespace realmt::models {

std::string_view part_name(Part p) {
  switch (p) {
    case Part::kPositions: return "positions";
    case Part::kEmbeddings: return "embeddings";
    case Part::kSourceEmbeddings: return "source_embeddings";
    case Part::kOutput: return "output";
    case Part::kOutputBias: return "output_bias";
    case Part::kQkv: return "qkv";
    case Part::kQ: return "q";
    case Part::kKv: return "kv";
    case Part::kO: return "o";
    case Part::kW1: return "w1";
    case Part::kW2: return "w2";
    case Part::kNorm: return "norm";
    case Part::kOmega: return "omega";
  }
  return "?";
}

std::string_view sublayer_name(Sublayer s) {
  switch (s) {
    case Sublayer::kNone: return "";
    case Sublayer::kSelfAttn: return "self_attn";
    case Sublayer::kCrossAttn: return "cross_attn";
    case Sublayer::kFfn: return "ffn";
  }
  return "?";
}

graph::Initializer initializer(const InitSpec& init) {
  switch (init.kind) {
    case InitSpec::Kind::kXavier: return layers::xavier_uniform(init.blocks);
    case InitSpec::Kind::kNormal: return layers::normal(init.value);
    case InitSpec::Kind::kConstant: return layers::constant(init.value);
  }
  return nullptr;
}

namespace {

std::string_view field_suffix(Field f) {
  switch (f) {
    case Field::kWeight: return ".weight";
    case Field::kBias: return ".bias";
    case Field::kGamma: return ".gamma";
    case Field::kBeta: return ".beta";
    case Field::kValue: return "";
  }
  return "";
}

InitSpec xavier(int blocks) { return {InitSpec::Kind::kXavier, 0.0, blocks}; }
InitSpec normal(double std) { return {InitSpec::Kind::kNormal, std, 1}; }
InitSpec constant(double value) { return {InitSpec::Kind::kConstant, value, 1}; }

}  // namespace

std::string Layout::name(const Role& r) {
  // Model-level parts: "positions", "embeddings.weight", "source_embeddings.weight",
  // "output.weight", "output.bias".
  if (r.stack == Stack::kNone) {
    if (r.part == Part::kOutputBias) return "output.bias";
    return std::string(part_name(r.part)) + std::string(field_suffix(r.field));
  }
  std::string s = r.stack == Stack::kEncoder ? "encoder" : "decoder";
  if (r.layer < 0)
    return s + ".final_norm" + std::string(field_suffix(r.field));  // Pre-LN's last norm
  s += ".layers." + std::to_string(r.layer) + "." + std::string(sublayer_name(r.sublayer));
  return s + "." + std::string(part_name(r.part)) + std::string(field_suffix(r.field));
}

void Layout::add(const Role& role, Shape shape, InitSpec init) {
  entries_.push_back({name(role), shape, role, init});
}

void Layout::add_linear(Role sub, Part part, int64_t in, int64_t out, int blocks) {
  add(sub.with(part, Field::kWeight), {in, out}, xavier(blocks));
  add(sub.with(part, Field::kBias), {out}, constant(0.0));
}

void Layout::add_norm(const Role& where, int64_t dim) {
  add(where.with(Part::kNorm, Field::kGamma), {dim}, constant(1.0));
  add(where.with(Part::kNorm, Field::kBeta), {dim}, constant(0.0));
}

void Layout::add_sublayer(const ModelConfig& c, const Role& sub, int sublayers_in_stack) {
  const int64_t d = c.dim_emb;
  switch (sub.sublayer) {
    case Sublayer::kSelfAttn:
      add_linear(sub, Part::kQkv, d, 3 * d, 3);
      add_linear(sub, Part::kO, d, d);
      break;
    case Sublayer::kCrossAttn:
      add_linear(sub, Part::kQ, d, d);
      add_linear(sub, Part::kKv, d, 2 * d, 2);
      add_linear(sub, Part::kO, d, d);
      break;
    case Sublayer::kFfn:
      add_linear(sub, Part::kW1, d, c.dim_ffn);
      add_linear(sub, Part::kW2, c.dim_ffn, d);
      break;
    case Sublayer::kNone: REALMT_ASSERT(false);
  }
  add_norm(sub, d);
  // ADMIN's omegas start at the closed form of their stack, or at 1 until a profiling pass sets
  // them.
  if (c.norm == Norm::kPost && c.admin_init != AdminInit::kNone) {
    const bool closed = c.admin_init == AdminInit::kClosedForm;
    add(sub.with(Part::kOmega, Field::kValue), {d},
        constant(closed ? admin_closed_form_omega(sublayers_in_stack) : 1.0));
  }
}

Layout::Layout(const ModelConfig& c) : enc_depth_(c.enc_depth), dec_depth_(c.dec_depth) {
  const int64_t d = c.dim_emb, vt = c.target_vocab();
  // Normal(0, D^-1/2) for tables: with the sqrt(D) scale, unit variance. Learned positions (one
  // table for both sides, Marian's Wpos) draw as unscaled embeddings would.
  const InitSpec table = normal(c.scale_embeddings ? 1.0 / std::sqrt(double(d)) : 1.0);
  if (c.positions == layers::Positions::kLearned)
    add({.part = Part::kPositions, .field = Field::kValue}, {c.learned_positions, d},
        normal(1.0 / std::sqrt(double(d))));
  add({.part = Part::kEmbeddings}, {vt, d}, table);
  if (!c.source_target_tied()) add({.part = Part::kSourceEmbeddings}, {c.vocab_size, d}, table);
  for (const Stack st : {Stack::kEncoder, Stack::kDecoder}) {
    const std::vector<Role> subs = sublayers(st);
    for (const Role& sub : subs) add_sublayer(c, sub, static_cast<int>(subs.size()));
  }
  if (c.norm == Norm::kPre)
    for (const Stack st : {Stack::kEncoder, Stack::kDecoder}) add_norm({.stack = st}, d);
  if (!c.target_output_tied()) add({.part = Part::kOutput}, {vt, d}, table);
  if (c.output_bias) add({.part = Part::kOutputBias, .field = Field::kBias}, {vt}, constant(0.0));
}

std::vector<Role> Layout::sublayers(Stack stack) const {
  std::vector<Role> out;
  const bool enc = stack == Stack::kEncoder;
  for (int i = 0; i < (enc ? enc_depth_ : dec_depth_); ++i) {
    out.push_back({.stack = stack, .layer = i, .sublayer = Sublayer::kSelfAttn});
    if (!enc) out.push_back({.stack = stack, .layer = i, .sublayer = Sublayer::kCrossAttn});
    out.push_back({.stack = stack, .layer = i, .sublayer = Sublayer::kFfn});
  }
  return out;
}

int Layout::find(const Role& role) const {
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].role == role) return static_cast<int>(i);
  return -1;
}

int Layout::index(const Role& role) const {
  const int i = find(role);
  REALMT_ASSERT(i >= 0);
  return i;
}

}  // namespace realmt::models
