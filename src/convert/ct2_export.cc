#include "convert/ct2_export.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "core/error.h"
#include "layers/embedding.h"

namespace realmt::convert {
namespace {

// The position table of a sinusoidal layout, `rows` rows.
Tensor sinusoids(const models::ModelConfig& c, int64_t rows) {
  graph::ParameterSet scratch;
  const layers::Embedding table(scratch, "positions", 1, c.dim_emb,
                                {c.positions, c.scale_embeddings});
  return table.positions(0, rows, DType::kF32, Device::cpu());
}

// The first `rows` rows of a learned table [P, D], its last row repeated past P (as Marian reads
// them).
Tensor clamped_rows(const Tensor& table, int64_t rows) {
  const Tensor h = table.to(Device::cpu());
  const int64_t p = h.dim(0), d = h.dim(1);
  std::vector<float> out(rows * d);
  for (int64_t r = 0; r < rows; ++r)
    std::copy_n(h.data<float>() + std::min(r, p - 1) * d, d, out.data() + r * d);
  return Tensor::from_vector(out, {rows, d});
}

// CTranslate2's DataType ids (include/ctranslate2/types.h) and binary layout (model_spec.py).
enum class Ct2Type : uint8_t { kF32 = 0, kI8 = 1, kI16 = 2 };
constexpr uint32_t kBinaryVersion = 6, kTransformerRevision = 7;

struct Variable {
  Ct2Type type = Ct2Type::kF32;
  std::vector<int64_t> shape;
  std::string bytes;
};

class Writer {
 public:
  void tensor(const std::string& name, const Tensor& t) {
    Variable v;
    v.shape = t.shape().vec();
    v.bytes.assign(static_cast<const char*>(t.raw()), t.nbytes());
    vars_[name] = std::move(v);
  }
  void f32(const std::string& name, float x) { scalar(name, Ct2Type::kF32, &x, 4); }
  void i8(const std::string& name, int8_t x) { scalar(name, Ct2Type::kI8, &x, 1); }
  void i16(const std::string& name, int16_t x) { scalar(name, Ct2Type::kI16, &x, 2); }

  std::string serialize() const {
    std::string out;
    auto u8 = [&](uint8_t x) { out.push_back(static_cast<char>(x)); };
    auto u16 = [&](uint16_t x) { out.append(reinterpret_cast<const char*>(&x), 2); };
    auto u32 = [&](uint32_t x) { out.append(reinterpret_cast<const char*>(&x), 4); };
    auto str = [&](const std::string& s) {
      u16(static_cast<uint16_t>(s.size() + 1));
      out += s;
      u8(0);
    };
    u32(kBinaryVersion);
    str("TransformerSpec");
    u32(kTransformerRevision);
    u32(static_cast<uint32_t>(vars_.size()));
    for (const auto& [name, v] : vars_) {  // std::map: sorted by name, as CTranslate2's writer
      str(name);
      u8(static_cast<uint8_t>(v.shape.size()));
      for (int64_t d : v.shape) u32(static_cast<uint32_t>(d));
      u8(static_cast<uint8_t>(v.type));
      REALMT_CHECK(v.bytes.size() < (uint64_t(1) << 32),
                   "variable {} too large for CTranslate2's format", name);
      u32(static_cast<uint32_t>(v.bytes.size()));
      out += v.bytes;
    }
    u32(0);  // no aliases
    return out;
  }

 private:
  void scalar(const std::string& name, Ct2Type type, const void* p, size_t n) {
    Variable v;
    v.type = type;
    v.bytes.assign(static_cast<const char*>(p), n);
    vars_[name] = std::move(v);
  }
  std::map<std::string, Variable> vars_;
};

// Host f32 copies the folding may change.
using Tensors = std::map<std::string, Tensor>;

Tensor copy(const Tensor& t) {
  Tensor c = Tensor::empty(t.shape(), DType::kF32);
  std::memcpy(c.raw(), t.raw(), t.nbytes());
  return c;
}

// t [R, C] times w per column (cols) or per row (rows), in place.
void scale_columns(Tensor& t, const std::vector<float>& w) {
  float* p = t.data<float>();
  const int64_t c = t.dim(1);
  for (int64_t i = 0; i < t.numel(); ++i) p[i] *= w[static_cast<size_t>(i % c)];
}
void scale_rows(Tensor& t, const std::vector<float>& w, bool divide) {
  float* p = t.data<float>();
  const int64_t c = t.dim(1);
  for (int64_t i = 0; i < t.numel(); ++i)
    p[i] = divide ? p[i] / w[static_cast<size_t>(i / c)] : p[i] * w[static_cast<size_t>(i / c)];
}
void scale_vector(Tensor& t, const std::vector<float>& w) {
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] *= w[static_cast<size_t>(i)];
}

Tensor drop_last_row(const Tensor& t) { return t.narrow0(0, t.dim(0) - 1); }

using models::Field;
using models::Part;
using models::Role;
using models::Stack;
using models::Sublayer;

// CTranslate2's scope of a sub-layer, e.g. "decoder/layer_0/attention", and of a stack's final
// norm.
std::string ct2_scope(const Role& r) {
  const std::string stack = r.stack == Stack::kEncoder ? "encoder" : "decoder";
  if (r.layer < 0) return stack;
  const std::string layer = stack + "/layer_" + std::to_string(r.layer);
  switch (r.sublayer) {
    case Sublayer::kSelfAttn: return layer + "/self_attention";
    case Sublayer::kCrossAttn: return layer + "/attention";
    case Sublayer::kFfn: return layer + "/ffn";
    case Sublayer::kNone: break;
  }
  REALMT_ASSERT(false);
  return "";
}

// CTranslate2 numbers a sub-layer's projections: linear_0 (Q|K|V, Q, FFN in), linear_1 (K|V, FFN
// out; self-attention's output), linear_2 (cross-attention's output).
std::string ct2_linear(const Role& r) {
  switch (r.part) {
    case Part::kQkv:
    case Part::kQ:
    case Part::kW1: return "linear_0";
    case Part::kKv:
    case Part::kW2: return "linear_1";
    case Part::kO: return r.sublayer == Sublayer::kCrossAttn ? "linear_2" : "linear_1";
    default: break;
  }
  REALMT_ASSERT(false);
  return "";
}

// The sub-layer's input projection: the one ADMIN's omega is divided out of.
Part input_projection(Sublayer s) {
  return s == Sublayer::kSelfAttn ? Part::kQkv : s == Sublayer::kCrossAttn ? Part::kQ : Part::kW1;
}

// Folds ADMIN's omegas (write_ctranslate2's header): each sub-layer's input projection rows
// divided by its omega; the norm before it (or the stack's embeddings and positions) times it.
// stack_inputs: per stack, its embeddings and positions.
void fold_omegas(const models::Layout& layout, Tensors& t, Tensor* const (&stack_inputs)[2][2]) {
  for (const Stack st : {Stack::kEncoder, Stack::kDecoder}) {
    const std::vector<Role> subs = layout.sublayers(st);
    for (size_t k = 0; k < subs.size(); ++k) {
      const std::string omega =
          layout[layout.index(subs[k].with(Part::kOmega, Field::kValue))].name;
      const std::vector<float> w = t.at(omega).to_vector<float>();
      for (float x : w)
        REALMT_CHECK(std::isfinite(x) && std::abs(x) > 1e-6f,
                     "{}: an ADMIN omega of {} cannot be folded", omega, x);
      scale_rows(t.at(models::Layout::name(
                     subs[k].with(input_projection(subs[k].sublayer), Field::kWeight))),
                 w,
                 /*divide=*/true);
      if (k == 0) {
        for (Tensor* x : stack_inputs[st == Stack::kEncoder ? 0 : 1]) scale_columns(*x, w);
      } else {
        for (const Field f : {Field::kGamma, Field::kBeta})
          scale_vector(t.at(models::Layout::name(subs[k - 1].with(Part::kNorm, f))), w);
      }
    }
  }
}

}  // namespace

Ct2Mapping ct2_mapping(const models::LayoutEntry& e) {
  using Kind = Ct2Mapping::Kind;
  const Role& r = e.role;
  if (r.stack == Stack::kNone) return {Kind::kTable, ""};
  if (r.part == Part::kOmega) return {Kind::kFolded, ""};
  const std::string scope = ct2_scope(r);
  switch (r.field) {
    case Field::kGamma: return {Kind::kTensor, scope + "/layer_norm/gamma"};
    case Field::kBeta: return {Kind::kTensor, scope + "/layer_norm/beta"};
    case Field::kWeight: return {Kind::kTransposed, scope + "/" + ct2_linear(r) + "/weight"};
    case Field::kBias: return {Kind::kTensor, scope + "/" + ct2_linear(r) + "/bias"};
    case Field::kValue: break;
  }
  REALMT_FAIL("{}: no CTranslate2 name for this parameter", e.name);
}

void write_ctranslate2(const ConvertedModel& m, const std::string& dir, const Ct2Options& o) {
  const models::ModelConfig& c = m.config;
  using layers::ResidualMode;
  REALMT_CHECK(c.residual_attention_encoder == ResidualMode::kNone &&
                   c.residual_attention_decoder == ResidualMode::kNone &&
                   c.residual_attention_cross == ResidualMode::kNone,
               "this model uses residual attention (RealFormer: residual-attention-encoder {}, "
               "-decoder {}, -cross {}): "
               "each layer adds the previous layer's attention scores to its own, which "
               "CTranslate2's Transformer "
               "cannot express, so it cannot be exported; export a model trained with residual "
               "attention none",
               enum_name(c.residual_attention_encoder), enum_name(c.residual_attention_decoder),
               enum_name(c.residual_attention_cross));
  REALMT_CHECK(!c.decoder_cache_unnormed,
               "this model decodes as Marian's Pre-LN decoder (transformer-decoder-cache-unnormed: "
               "keys and values from "
               "the stream before the norm after the first step), which CTranslate2's Transformer "
               "cannot express");
  REALMT_CHECK(!m.source_table.empty(),
               "the model's vocabulary is needed to write CTranslate2's vocabulary files: give the "
               ".spm it was "
               "trained with (--vocabs)");
  REALMT_CHECK(o.max_positions >= 1, "max-positions must be positive, got {}", o.max_positions);
  check_parameters(m);
  Tensors t;
  for (const auto& [name, x] : m.tensors) t[name] = copy(x);
  const int64_t d = c.dim_emb;
  const bool post = c.norm == models::Norm::kPost,
             admin = post && c.admin_init != models::AdminInit::kNone;

  // Tables and positions per stack (copies: the folding may scale them differently).
  Tensor source_emb =
      copy(t.at(c.source_target_tied() ? "embeddings.weight" : "source_embeddings.weight"));
  Tensor target_emb = copy(t.at("embeddings.weight"));
  Tensor projection = copy(t.at(c.target_output_tied() ? "embeddings.weight" : "output.weight"));
  // Learned positions are the model's table (its last row repeated up to max-positions, as Marian
  // reads positions past its end); CTranslate2 adds an explicit table either way.
  Tensor enc_pos = c.positions == layers::Positions::kLearned
                       ? clamped_rows(t.at("positions"), o.max_positions)
                       : copy(sinusoids(c, o.max_positions));
  Tensor dec_pos = copy(enc_pos);

  const models::Layout layout(c);
  Tensor* const stack_inputs[2][2] = {{&source_emb, &enc_pos}, {&target_emb, &dec_pos}};
  if (admin) fold_omegas(layout, t, stack_inputs);

  // Marian / Hugging Face: decoding starts from the zero embedding of a last <pad> entry, which
  // CTranslate2 expresses as start_from_zero_embedding without the entry (as its own converter).
  std::vector<std::string> source_vocab = m.source_table, target_vocab = m.target_pieces();
  Tensor projection_bias = c.output_bias ? copy(t.at("output.bias")) : Tensor();
  bool zero_start = false;
  if (c.decoder_start_id == c.pad_id && c.pad_id == static_cast<int>(target_vocab.size()) - 1) {
    zero_start = true;
    const float* row = target_emb.data<float>() + static_cast<int64_t>(c.pad_id) * d;
    for (int64_t j = 0; j < d; ++j) zero_start = zero_start && row[j] == 0.0f;
  }
  if (zero_start) {
    target_emb = drop_last_row(target_emb);
    projection = drop_last_row(projection);
    if (projection_bias.defined()) projection_bias = drop_last_row(projection_bias);
    target_vocab.pop_back();
    if (c.pad_id == static_cast<int>(source_vocab.size()) - 1) {
      source_emb = drop_last_row(source_emb);
      source_vocab.pop_back();
    }
  }

  Writer wr;
  const float scale =
      c.scale_embeddings ? static_cast<float>(std::sqrt(static_cast<double>(d))) : 1.0f;
  // CTranslate2's activation ids: relu 0, swish 2, gelu (erf) 3, gelu-sigmoid 4.
  const int8_t activation = c.ffn_activation == ops::Activation::kRelu    ? 0
                            : c.ffn_activation == ops::Activation::kSwish ? 2
                            : c.ffn_activation == ops::Activation::kGelu  ? 3
                                                                          : 4;
  wr.tensor("encoder/embeddings_0/weight", source_emb);
  wr.tensor("encoder/position_encodings/encodings", enc_pos);
  wr.f32("encoder/scale_embeddings", scale);
  wr.i16("encoder/num_heads", static_cast<int16_t>(c.heads));
  wr.i8("encoder/pre_norm", post ? 0 : 1);
  wr.i8("encoder/activation", activation);
  wr.i8("encoder/embeddings_merge", 0);
  wr.i8("encoder/multi_query_attention", 0);
  wr.tensor("decoder/embeddings/weight", target_emb);
  wr.tensor("decoder/position_encodings/encodings", dec_pos);
  wr.f32("decoder/scale_embeddings", scale);
  wr.i16("decoder/num_heads", static_cast<int16_t>(c.heads));
  wr.i8("decoder/pre_norm", post ? 0 : 1);
  wr.i8("decoder/activation", activation);
  wr.i16("decoder/alignment_layer", -1);
  wr.i16("decoder/alignment_heads", 1);
  wr.i8("decoder/alibi", 0);
  wr.i8("decoder/alibi_use_positive_positions", 0);
  wr.i8("decoder/scale_alibi", 0);
  wr.i8("decoder/start_from_zero_embedding", zero_start ? 1 : 0);
  wr.tensor("decoder/projection/weight", projection);
  if (projection_bias.defined()) wr.tensor("decoder/projection/bias", projection_bias);
  for (const models::LayoutEntry& e : layout.entries()) {
    const Ct2Mapping to = ct2_mapping(e);
    if (to.kind == Ct2Mapping::Kind::kTensor) wr.tensor(to.name, t.at(e.name));
    if (to.kind == Ct2Mapping::Kind::kTransposed) wr.tensor(to.name, transposed(t.at(e.name)));
  }

  std::filesystem::create_directories(dir);
  write_file_atomic(dir + "/model.bin", wr.serialize());
  const std::string eos = target_vocab.at(static_cast<size_t>(c.eos_id));
  nlohmann::ordered_json config{
      {"add_source_bos", false},
      {"add_source_eos", true},
      {"bos_token", "<s>"},
      {"decoder_start_token",
       zero_start ? eos : m.target_pieces().at(static_cast<size_t>(c.decoder_start_id))},
      {"eos_token", eos},
      {"layer_norm_epsilon", c.layer_norm_eps},
      {"multi_query_attention", false},
      {"unk_token", target_vocab.at(static_cast<size_t>(c.unk_id))}};
  write_file_atomic(dir + "/config.json", config.dump(2) + "\n");
  for (const char* stale :
       {"/shared_vocabulary.json", "/source_vocabulary.json", "/target_vocabulary.json"})
    std::filesystem::remove(dir + stale);
  if (source_vocab == target_vocab) {
    write_file_atomic(dir + "/shared_vocabulary.json", nlohmann::json(source_vocab).dump(2) + "\n");
  } else {
    write_file_atomic(dir + "/source_vocabulary.json", nlohmann::json(source_vocab).dump(2) + "\n");
    write_file_atomic(dir + "/target_vocabulary.json", nlohmann::json(target_vocab).dump(2) + "\n");
  }
}

}  // namespace realmt::convert
