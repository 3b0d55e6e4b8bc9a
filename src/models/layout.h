// The Transformer's parameters as data: every parameter a ModelConfig gives the model, in the
// order the model declares them (the order init() draws in and checkpoints list), each with its
// realmt name, shape, role (stack, layer, sub-layer, part, field) and initializer. The model
// declares its parameters from this list (models/transformer.cc) and the converters map each
// entry to their own names through a naming table of their own (src/convert/), so the structure
// is written down once: a new parameter is one entry here, the layer that uses it, and each
// naming table's line for it (or its refusal).
//
// Order: [positions] embeddings [source_embeddings], encoder layers (self_attn, ffn), decoder
// layers (self_attn, cross_attn, ffn), [final norms: Pre-LN], [output], [output.bias].
// Within a sub-layer: its projections (weight, bias), its norm (gamma, beta), [its ADMIN omega].
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/shape.h"
#include "graph/parameters.h"
#include "models/model_config.h"

namespace realmt::models {

enum class Stack { kNone, kEncoder, kDecoder };
// kNone: a model-level part (tables, positions, output bias) or a stack's final norm.
enum class Sublayer { kNone, kSelfAttn, kCrossAttn, kFfn };
enum class Part {
  kPositions,         // learned position table [P, D], both sides
  kEmbeddings,        // the target side's table [V_t, D] (and the source's and output's when tied)
  kSourceEmbeddings,  // untied source table [V, D]
  kOutput,            // untied output layer [V_t, D]
  kOutputBias,        // logits bias [V_t]
  kQkv,               // self-attention Q|K|V [D, 3D]
  kQ,                 // cross-attention Q [D, D]
  kKv,                // cross-attention K|V [D, 2D] (the source side)
  kO,                 // attention output [D, D]
  kW1,                // feed-forward in [D, F]
  kW2,                // feed-forward out [F, D]
  kNorm,   // a sub-layer's norm (Post-LN: after it; Pre-LN: before it), or a stack's final norm
  kOmega,  // ADMIN's residual scale [D] (Post-LN with admin-init other than none)
};
enum class Field {
  kWeight,
  kBias,
  kGamma,
  kBeta,
  kValue
};  // kValue: a bare tensor (positions, omega)

std::string_view part_name(Part p);
std::string_view sublayer_name(Sublayer s);

// Where a parameter sits. layer is 0-based within its stack, -1 outside layers.
struct Role {
  Stack stack = Stack::kNone;
  int layer = -1;
  Sublayer sublayer = Sublayer::kNone;
  Part part = Part::kEmbeddings;
  Field field = Field::kWeight;
  bool operator==(const Role&) const = default;
  Role with(Part p, Field f) const { return {stack, layer, sublayer, p, f}; }
};

// How a parameter starts (layers/init.h): Xavier uniform over `blocks` fused projections,
// Normal(0, value), or every element = value.
struct InitSpec {
  enum class Kind { kXavier, kNormal, kConstant } kind = Kind::kConstant;
  double value = 0.0;
  int blocks = 1;
  bool operator==(const InitSpec&) const = default;
};
graph::Initializer initializer(const InitSpec& init);

struct LayoutEntry {
  std::string name;  // realmt's (checkpoints, graph::ParameterSet)
  Shape shape;
  Role role;
  InitSpec init;
};

class Layout {
 public:
  explicit Layout(const ModelConfig& config);

  const std::vector<LayoutEntry>& entries() const& { return entries_; }
  // Of a temporary (`for (auto& e : Layout(c).entries())`): the entries themselves, which outlive
  // it.
  std::vector<LayoutEntry> entries() && { return std::move(entries_); }
  int size() const { return static_cast<int>(entries_.size()); }
  // The entry's index (= the model's parameter index), or -1 when the config has no such part.
  int find(const Role& role) const;
  // As find, but the part must be there (an internal error otherwise).
  int index(const Role& role) const;
  const LayoutEntry& operator[](int i) const { return entries_.at(static_cast<size_t>(i)); }
  // The sub-layers of a stack in forward order (encoder: self_attn, ffn per layer; decoder:
  // self_attn, cross_attn, ffn), each as the role of its layer and sub-layer (part, field unset).
  std::vector<Role> sublayers(Stack stack) const;
  // The realmt name of a role (whether or not the config has it).
  static std::string name(const Role& role);

 private:
  void add(const Role& role, Shape shape, InitSpec init);
  void add_linear(Role sub, Part part, int64_t in, int64_t out, int blocks = 1);
  void add_sublayer(const ModelConfig& c, const Role& sub, int sublayers_in_stack);
  void add_norm(const Role& where, int64_t dim);
  std::vector<LayoutEntry> entries_;
  int enc_depth_ = 0, dec_depth_ = 0;
};

}  // namespace realmt::models
