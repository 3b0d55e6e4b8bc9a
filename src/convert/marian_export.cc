#include "convert/marian_export.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "common/atomic_file.h"
#include "convert/marian_names.h"
#include "convert/npy.h"
#include "convert/zip_writer.h"
#include "core/error.h"
#include "data/vocab.h"

namespace realmt::convert {
namespace {

using Members = std::vector<std::pair<std::string, std::string>>;

// A converted Marian / Hugging Face model: the decoder starts from a last <pad> entry.
bool learned_positions(const models::ModelConfig& c) {
  return c.positions == layers::Positions::kLearned;
}

bool starts_from_last_pad(const models::ModelConfig& c) {
  return c.decoder_start_id == c.pad_id && c.pad_id == c.target_vocab() - 1;
}

Tensor first_rows(const Tensor& t, int64_t rows) {
  return rows == t.dim(0) ? t : t.narrow0(0, rows);
}

// Marian [1, N] from realmt [N].
Tensor row(const Tensor& t) { return t.reshape({1, t.numel()}); }

// part i of n equal column blocks of a matrix [R, n x C] (elements of a vector [n x C]).
Tensor part(const Tensor& t, size_t i, size_t n, bool vector) {
  if (vector) {
    const int64_t w = t.numel() / static_cast<int64_t>(n);
    return row(t.narrow0(static_cast<int64_t>(i) * w, static_cast<int64_t>(i + 1) * w));
  }
  const int64_t w = t.dim(1) / static_cast<int64_t>(n);
  // Columns of a row-major matrix: through its transpose's rows.
  return transposed(
      transposed(t).narrow0(static_cast<int64_t>(i) * w, static_cast<int64_t>(i + 1) * w));
}

// Marian's name of an activation marian_incompatibility() lets through (Marian 1.12.42's gelu is
// the erf one, realmt's gelu).
const char* marian_activation(ops::Activation a) {
  return a == ops::Activation::kGelu ? "gelu" : a == ops::Activation::kRelu ? "relu" : "swish";
}

// Marian's model config (the keys its own special:model.yml holds for a transformer).
std::string marian_config(const models::ModelConfig& c, int64_t vs, int64_t vt) {
  std::ostringstream y;
  y << "type: transformer\n"
    << "dim-emb: " << c.dim_emb << "\n"
    << "dim-vocabs:\n  - " << vs << "\n  - " << vt << "\n"
    << "enc-depth: " << c.enc_depth << "\n"
    << "dec-depth: " << c.dec_depth << "\n"
    << "tied-embeddings: " << (c.tied_embeddings ? "true" : "false") << "\n"
    << "tied-embeddings-all: " << (c.tied_embeddings_all ? "true" : "false") << "\n"
    << "tied-embeddings-src: " << (c.tied_embeddings_src ? "true" : "false") << "\n"
    << "transformer-heads: " << c.heads << "\n"
    << "transformer-dim-ffn: " << c.dim_ffn << "\n"
    << "transformer-decoder-dim-ffn: 0\n"
    << "transformer-ffn-depth: 2\n"
    << "transformer-decoder-ffn-depth: 0\n"
    << "transformer-ffn-activation: " << marian_activation(c.ffn_activation) << "\n"
    << "transformer-preprocess: \"\"\n"
    << "transformer-postprocess: dan\n"
    << "transformer-postprocess-emb: d\n"
    << "transformer-postprocess-top: \"\"\n"
    << "transformer-decoder-autoreg: self-attention\n"
    << "transformer-dropout: " << c.dropout << "\n"
    << "transformer-no-projection: false\n"
    << "transformer-train-position-embeddings: false\n"
    << "transformer-train-positions: " << (learned_positions(c) ? "true" : "false") << "\n"
    << "transformer-tied-layers:\n  []\n"
    << "output-omit-bias: false\n"
    << "right-left: false\n"
    << "skip: false\n"
    << "layer-normalization: false\n"
    << "input-types:\n  []\n"
    << "version: realmt-convert\n";
  return y.str();
}

std::string yml_vocab(const std::vector<std::string>& pieces) {
  std::string out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string quoted;  // a YAML double-quoted scalar: any piece reads back as itself
    for (char ch : pieces[i]) {
      if (ch == '"' || ch == '\\') quoted += '\\';
      quoted += ch;
    }
    out += "\"" + quoted + "\": " + std::to_string(i) + "\n";
  }
  return out;
}

// The vocabulary beside the model (file names from `stem`): the .spm itself when Marian's ids
// for it are realmt's, else .yml tables of the vs source and vt target entries.
std::vector<std::string> write_vocabularies(const ConvertedModel& m, const std::string& stem,
                                            int64_t vs, int64_t vt, const MarianExportOptions& o) {
  if (m.source_table.empty() || (!o.spm.empty() && m.config.realmt_special_ids())) {
    REALMT_CHECK(!o.spm.empty(),
                 "the model's vocabulary is needed: give the .spm it was trained with (--vocabs)");
    const data::Vocab v(o.spm);
    if (v.special_ids() ==
        "pad=0 unk=1 bos=2 eos=3") {  // the .spm's ids are realmt's (data/vocab.h)
      std::filesystem::copy_file(o.spm, stem + ".vocab.spm",
                                 std::filesystem::copy_options::overwrite_existing);
      return {stem + ".vocab.spm"};
    }
    std::vector<std::string> pieces;
    for (int32_t id = 0; id < v.size(); ++id) pieces.push_back(v.piece(id));
    write_file_atomic(stem + ".vocab.yml", yml_vocab(pieces));
    return {stem + ".vocab.yml"};
  }
  const std::vector<std::string> source(m.source_table.begin(), m.source_table.begin() + vs);
  const std::vector<std::string>& t = m.target_pieces();
  const std::vector<std::string> target(t.begin(), t.begin() + vt);
  if (source == target) {
    write_file_atomic(stem + ".vocab.yml", yml_vocab(source));
    return {stem + ".vocab.yml"};
  }
  write_file_atomic(stem + ".vocab.src.yml", yml_vocab(source));
  write_file_atomic(stem + ".vocab.trg.yml", yml_vocab(target));
  return {stem + ".vocab.src.yml", stem + ".vocab.trg.yml"};
}

}  // namespace

std::string marian_incompatibility(const models::ModelConfig& c) {
  using layers::ResidualMode;
  if (c.residual_attention_encoder != ResidualMode::kNone ||
      c.residual_attention_decoder != ResidualMode::kNone ||
      c.residual_attention_cross != ResidualMode::kNone)
    return format(
        "residual attention (RealFormer: residual-attention-encoder {}, -decoder {}, -cross {}) "
        "adds the "
        "previous layer's attention scores to each layer's, which Marian's transformer cannot "
        "express; "
        "train with residual-attention-encoder/-decoder/-cross none",
        enum_name(c.residual_attention_encoder), enum_name(c.residual_attention_decoder),
        enum_name(c.residual_attention_cross));
  if (c.ffn_activation == ops::Activation::kGeluSigmoid)
    return "transformer-ffn-activation gelu-sigmoid: Marian 1.12.42's gelu is x Phi(x) (erf; the "
           "sigmoid form "
           "was that of earlier Marian releases); train with transformer-ffn-activation gelu, relu "
           "or swish";
  if (c.norm != models::Norm::kPost)
    return "transformer-norm pre: the Marian writer writes Post-LN models (post)";
  if (c.admin_init != models::AdminInit::kNone)
    return format(
        "admin-init {}: ADMIN's omegas scale the residual of the first sub-layer, embeddings and "
        "Marian's "
        "fixed positions alike, which Marian cannot express; train with admin-init none",
        enum_name(c.admin_init));
  const bool sinusoids = c.positions == layers::Positions::kSinusoidalMarian && c.scale_embeddings;
  const bool marian_positions = learned_positions(c) ? !c.scale_embeddings : sinusoids;
  if (!marian_positions)
    return format(
        "transformer-positions {} (transformer-scale-embeddings {}): Marian adds its own sinusoids "
        "to "
        "embeddings scaled by sqrt(dim-emb), or a learned table (Wpos) to unscaled ones; train "
        "with "
        "transformer-positions sinusoidal-marian, or learned with transformer-scale-embeddings "
        "false",
        enum_name(c.positions), c.scale_embeddings);
  if (std::abs(c.layer_norm_eps - 1e-6) > 1e-12)
    return format(
        "layer-norm-eps {}: Marian's transformer layer norms use 1e-6; train with layer-norm-eps "
        "1e-6",
        c.layer_norm_eps);
  if (!c.decoder_start_zero && !starts_from_last_pad(c))
    return "the decoder starts from <s>'s embedding; Marian starts from a zero vector: train with "
           "decoder-start-zero";
  if (c.target_vocab() != c.vocab_size && c.source_target_tied())
    return "tied source and target tables of two sizes";
  return "";
}

std::vector<std::string> write_marian(const ConvertedModel& m, const std::string& npz,
                                      const MarianExportOptions& o) {
  const models::ModelConfig& c = m.config;
  const std::string why = marian_incompatibility(c);
  REALMT_CHECK(why.empty(), "this model cannot be written as a Marian model: {}", why);
  REALMT_CHECK(std::filesystem::path(npz).extension() == ".npz",
               "{}: a Marian model file ends in .npz", npz);
  check_parameters(m);
  // A converted model's zero <pad> row (its decoder start) is dropped, as the importer added it.
  const bool drop = !c.decoder_start_zero;
  const int64_t vs = c.vocab_size - (drop && c.pad_id == c.vocab_size - 1 ? 1 : 0);
  const int64_t vt = c.target_vocab() - (drop ? 1 : 0);
  if (drop) {
    const std::vector<float> start = m.tensor("embeddings.weight")
                                         .narrow0(c.decoder_start_id, c.decoder_start_id + 1)
                                         .to_vector<float>();
    for (float x : start)
      REALMT_CHECK(
          x == 0.0f,
          "the decoder starts from entry {} (<pad>), whose embedding is not zero: Marian starts "
          "from a zero vector",
          c.decoder_start_id);
  }

  Members members;
  auto add = [&](const std::string& name, const Tensor& t) {
    members.emplace_back(name + ".npy", npy_f32(t));
  };
  const Tensor& target = m.tensor("embeddings.weight");
  if (c.tied_embeddings_all || c.tied_embeddings_src) {
    add("Wemb", first_rows(target, vt));
  } else {
    add("encoder_Wemb", first_rows(m.tensor("source_embeddings.weight"), vs));
    add("decoder_Wemb", first_rows(target, vt));
  }
  if (learned_positions(c))
    add("Wpos", m.tensor("positions"));  // one table for both sides, as Marian's
  if (!c.target_output_tied())
    add("decoder_ff_logit_out_W", transposed(first_rows(m.tensor("output.weight"), vt)));
  add("decoder_ff_logit_out_b",
      c.output_bias ? row(first_rows(m.tensor("output.bias"), vt)) : Tensor::full({1, vt}, 0.0f));
  for (const MarianParameter& p : marian_layer_parameters(c)) {
    const Tensor& t = m.tensor(p.realmt);
    for (size_t i = 0; i < p.marian.size(); ++i)
      add(p.marian[i], part(t, i, p.marian.size(), p.vector));
  }
  members.emplace_back("special:model.yml.npy", npy_text(marian_config(c, vs, vt)));
  std::filesystem::path out(npz);
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  write_file_atomic(npz, zip_stored(members));

  const std::vector<std::string> vocabs =
      write_vocabularies(m, (out.parent_path() / out.stem()).string(), vs, vt, o);
  std::string decoder =
      "relative-paths: true\nmodels:\n  - " + out.filename().string() + "\nvocabs:\n";
  for (size_t side = 0; side < 2; ++side)
    decoder +=
        "  - " +
        std::filesystem::path(vocabs[std::min(side, vocabs.size() - 1)]).filename().string() + "\n";
  decoder += format("beam-size: {}\nnormalize: 0\nword-penalty: 0\nmini-batch: 1\nmaxi-batch: 1\n",
                    o.beam_size);
  write_file_atomic(npz + ".decoder.yml", decoder);
  return vocabs;
}

}  // namespace realmt::convert
