#include "convert/marian_import.h"

#include <sentencepiece_processor.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <tuple>
#include <map>

#include "convert/marian_keys.h"
#include "convert/marian_names.h"
#include "convert/npy.h"
#include "convert/zip_reader.h"
#include "core/error.h"
#include "data/marian_vocab.h"
#include "ops/concat.h"

namespace realmt::convert {
namespace {

// Marian's .yml vocabulary {piece: id} as pieces by id (ids 0..n-1, each once).
std::vector<std::string> read_yml_vocab(const std::string& path) {
  return data::read_word_list(path);
}

// A SentencePiece model's pieces by id: Marian's ids for a .spm vocabulary are the model's own
// (it needs </s> and <unk> among them, and adds no bos or pad).
std::vector<std::string> read_spm_vocab(const std::string& path) {
  sentencepiece::SentencePieceProcessor sp;
  const auto status = sp.Load(path);
  REALMT_CHECK(status.ok(), "{}: not a SentencePiece model: {}", path, status.ToString());
  std::vector<std::string> table(static_cast<size_t>(sp.GetPieceSize()));
  for (size_t i = 0; i < table.size(); ++i) table[i] = sp.IdToPiece(static_cast<int>(i));
  return table;
}

// A Marian vocabulary by its extension, as Marian chooses: .spm a SentencePiece model, .yml/.yaml/
// .json {piece: id}; Marian's factored (.fsv) and plain-text vocabularies are refused.
std::vector<std::string> read_vocab(const std::string& path) {
  REALMT_CHECK(std::filesystem::is_regular_file(path), "vocabulary {} not found", path);
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".spm") return read_spm_vocab(path);
  REALMT_CHECK(ext == ".yml" || ext == ".yaml" || ext == ".json",
               "{}: a Marian vocabulary is needed (.spm SentencePiece model or .yml {{piece: "
               "id}}); '{}' is not "
               "one (factored .fsv vocabularies are not supported)",
               path, ext);
  return read_yml_vocab(path);
}

int find_piece(const std::vector<std::string>& table, const std::string& piece,
               const std::string& path) {
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i] == piece) return static_cast<int>(i);
  REALMT_FAIL("{}: the vocabulary has no '{}'", path, piece);
}

// t [V, ...] with `count` more rows of `fill`.
Tensor add_rows(const Tensor& t, int64_t count, float fill) {
  std::vector<int64_t> dims = t.shape().vec();
  dims[0] = count;
  return ops::concat({t, Tensor::full(Shape(dims), fill)}, 0);
}

// Marian's pre-/post-processing strings as realmt's norm placement. Dropout ('d') does nothing in
// translation; Post-LN is '' / 'dan' / top '' and Pre-LN 'n' / 'da' / top 'n' (the final norm of
// each stack, which realmt's Pre-LN has).
models::Norm marian_norm(std::string pre, std::string post, std::string top, std::string emb,
                         const std::string& where) {
  const std::string as_given = format(
      "transformer-preprocess '{}', transformer-postprocess '{}', "
      "transformer-postprocess-top '{}', transformer-postprocess-emb '{}'",
      pre, post, top, emb);
  for (std::string* s : {&pre, &post, &top, &emb}) std::erase(*s, 'd');
  REALMT_CHECK(emb.empty(), "{}: {}: a norm or skip on the embeddings is not implemented", where,
               as_given);
  if (pre.empty() && post == "an" && top.empty()) return models::Norm::kPost;
  if (pre == "n" && post == "a" && top == "n") return models::Norm::kPre;
  REALMT_FAIL(
      "{}: {}: realmt implements Post-LN ('', 'dan', top '') and Pre-LN with a final norm ('n', "
      "'da', "
      "top 'n')",
      where, as_given);
}

// Each side's table rows: dim-vocabs (source, target; one size: both), at least the vocabulary's
// entries; vocabulary sizes without dim-vocabs.
std::vector<int64_t> marian_rows(const YAML::Node& y, int64_t vs, int64_t vt,
                                 const std::string& where) {
  std::vector<int64_t> rows = {vs, vt};
  const YAML::Node d = y["dim-vocabs"];
  if (d && d.IsSequence() && d.size() > 0) {
    rows = {d[0].as<int64_t>(), d[d.size() - 1].as<int64_t>()};
    if (d.size() == 1) rows[1] = rows[0];
  }
  REALMT_CHECK(rows[0] >= vs && rows[1] >= vt,
               "{}: dim-vocabs {} and {} smaller than the vocabularies ({} and {})", where, rows[0],
               rows[1], vs, vt);
  return rows;
}


// The untied output layer as [V, D]: Marian 1.12 stores it so (decoder_ff_logit_out_Wt), older
// versions as [D, V] (decoder_ff_logit_out_W).
template <typename Get>
Tensor output_table(const std::map<std::string, NpyArray>& arrays, const std::string& npz,
                    const Get& get) {
  if (arrays.count("decoder_ff_logit_out_Wt")) return get("decoder_ff_logit_out_Wt");
  REALMT_CHECK(arrays.count("decoder_ff_logit_out_W"),
               "{}: no output layer (decoder_ff_logit_out_Wt or _W)", npz);
  return transposed(get("decoder_ff_logit_out_W"));
}

// The vocabularies' tables into m (Marian's ids, unused entries up to the larger side's rows, then
// <pad>, the decoder's start) and c's eos and unk; returns each side's table rows (dim-vocabs).
// Sides of other sizes: the smaller gets zero rows (no probability on the target side) up to the
// larger's size, so that the <pad> entry realmt adds has one id.
std::vector<int64_t> read_tables(ConvertedModel& m, const std::vector<std::string>& vocabs,
                                 const YAML::Node& y, const std::string& where) {
  models::ModelConfig& c = m.config;
  m.source_table = read_vocab(vocabs.front());
  if (vocabs.back() != vocabs.front()) m.target_table = read_vocab(vocabs.back());
  const int64_t vs = static_cast<int64_t>(m.source_table.size()),
                vt = static_cast<int64_t>(m.target_pieces().size());
  c.eos_id = find_piece(m.target_pieces(), "</s>", vocabs.back());
  c.unk_id = find_piece(m.target_pieces(), "<unk>", vocabs.back());
  REALMT_CHECK(find_piece(m.source_table, "</s>", vocabs.front()) == c.eos_id &&
                   find_piece(m.source_table, "<unk>", vocabs.front()) == c.unk_id,
               "{} and {}: </s> and <unk> have other ids on the two sides", vocabs.front(),
               vocabs.back());
  // dim-vocabs may exceed a vocabulary's entries (a .yml of fewer words): those ids get unused
  // entries, their rows kept.
  const std::vector<int64_t> rows = marian_rows(y, vs, vt, where);
  const int64_t n = std::max(rows[0], rows[1]);
  REALMT_CHECK(rows[0] == rows[1] || !c.source_target_tied(),
               "{}: dim-vocabs {} and {} for one shared table "
               "(tied-embeddings-all or -src)",
               where, rows[0], rows[1]);
  for (std::vector<std::string>* t : {&m.source_table, &m.target_table}) {
    if (t->empty()) continue;
    for (int64_t i = static_cast<int64_t>(t->size()); i < n; ++i)
      t->push_back("<unused:" + std::to_string(i) + ">");
    t->push_back("<pad>");
  }
  return rows;
}

}  // namespace

// Marian's gelu by the version that wrote the model: v1.12.42 (pymarian's, checked against it by
// the fixtures) computes x Phi(x) with erf, its own GELU operator; earlier releases computed
// x sigmoid(1.702 x) (their gelu was swish with a factor 1.702), as CTranslate2's converter
// assumes. A model without a version is taken as an early one; realmt-convert --to marian writes
// the erf one (for Marian 1.12.42) under the version "realmt-convert".
ops::Activation marian_gelu(const std::string& version) {
  if (version == "realmt-convert") return ops::Activation::kGelu;
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(version.c_str(), "v%d.%d.%d", &major, &minor, &patch) != 3)
    return ops::Activation::kGeluSigmoid;
  const bool erf = std::tuple(major, minor, patch) >= std::tuple(1, 12, 42);
  return erf ? ops::Activation::kGelu : ops::Activation::kGeluSigmoid;
}

ConvertedModel import_marian(const std::string& npz, const std::vector<std::string>& vocabs) {
  REALMT_CHECK(!vocabs.empty() && vocabs.size() <= 2,
               "vocabs: give the Marian model's vocabulary (.spm or .yml) once, or once a side "
               "(source, target)");
  const ZipReader zip(npz);
  std::map<std::string, NpyArray> arrays;
  for (const ZipMember& mem : zip.members()) {
    std::string name = mem.name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    arrays.emplace(name, parse_npy(zip.read(mem), npz + ": " + mem.name));
  }
  const auto yml = arrays.find("special:model.yml");
  REALMT_CHECK(yml != arrays.end(),
               "{}: no 'special:model.yml' (the model's config): not a Marian model", npz);
  const std::string config_text = npy_to_text(yml->second, npz + ": special:model.yml");
  YAML::Node y;
  try {
    y = YAML::Load(config_text);
  } catch (const YAML::Exception& e) {
    REALMT_FAIL("{}: special:model.yml is not YAML: {}", npz, e.what());
  }
  const std::string where = npz + " (special:model.yml)";
  auto str = [&](const char* key, const std::string& fallback) {
    return y[key] && !y[key].IsNull() ? y[key].as<std::string>() : fallback;
  };
  auto num = [&](const char* key, int64_t fallback) {
    return y[key] ? y[key].as<int64_t>() : fallback;
  };
  auto flag = [&](const char* key) { return y[key] && y[key].as<bool>(); };
  check_marian_keys(y, where);
  REALMT_CHECK(str("type", "transformer") == "transformer",
               "{}: type '{}': realmt reads Marian transformers (RNN "
               "types s2s, amun, nematus, and BERT or COMET types are not implemented)",
               where, str("type", ""));
  const models::Norm norm = marian_norm(
      str("transformer-preprocess", ""), str("transformer-postprocess", "dan"),
      str("transformer-postprocess-top", ""), str("transformer-postprocess-emb", "d"), where);
  REALMT_CHECK(
      num("transformer-ffn-depth", 2) == 2 && (num("transformer-decoder-ffn-depth", 0) == 0 ||
                                               num("transformer-decoder-ffn-depth", 0) == 2),
      "{}: transformer-ffn-depth {}, transformer-decoder-ffn-depth {}: realmt's feed-forwards have "
      "2 layers",
      where, num("transformer-ffn-depth", 2), num("transformer-decoder-ffn-depth", 0));
  const bool learned = flag("transformer-train-positions");
  REALMT_CHECK(learned == (arrays.count("Wpos") == 1),
               "{}: transformer-train-positions {} but {} table Wpos", npz,
               learned ? "true" : "false", learned ? "no" : "a");

  ConvertedModel m;
  m.origin = "marian:" + std::filesystem::path(npz).lexically_normal().string();
  models::ModelConfig& c = m.config;
  c.dim_emb = num("dim-emb", 512);
  c.enc_depth = static_cast<int>(num("enc-depth", 6));
  c.dec_depth = static_cast<int>(num("dec-depth", 6));
  c.heads = static_cast<int>(num("transformer-heads", 8));
  c.dim_ffn = num("transformer-dim-ffn", 2048);
  const int64_t dec_ffn = num("transformer-decoder-dim-ffn", 0);
  REALMT_CHECK(
      dec_ffn == 0 || dec_ffn == c.dim_ffn,
      "{}: transformer-decoder-dim-ffn {} differs from transformer-dim-ffn {}; realmt has one size",
      where, dec_ffn, c.dim_ffn);
  const std::string act = str("transformer-ffn-activation", "swish");
  if (act == "swish")
    c.ffn_activation = ops::Activation::kSwish;
  else if (act == "relu")
    c.ffn_activation = ops::Activation::kRelu;
  else if (act == "gelu")
    c.ffn_activation = marian_gelu(str("version", ""));
  else
    REALMT_FAIL("{}: transformer-ffn-activation '{}' (realmt: swish, relu, gelu)", where, act);
  c.norm = norm;
  c.decoder_cache_unnormed = norm == models::Norm::kPre;  // Marian's Pre-LN decoding state
  c.admin_init = models::AdminInit::kNone;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      layers::ResidualMode::kNone;
  // Learned positions: Marian adds rows of Wpos [P, D] (shared by both sides) to unscaled
  // embeddings.
  c.positions = learned ? layers::Positions::kLearned : layers::Positions::kSinusoidalMarian;
  c.scale_embeddings = !learned;
  c.layer_norm_eps = 1e-6;  // Marian's layerNorm in its transformer
  const bool all = flag("tied-embeddings-all");
  c.tied_embeddings_all = all;
  c.tied_embeddings_src = !all && flag("tied-embeddings-src");
  c.tied_embeddings = !all && flag("tied-embeddings");
  c.dropout = y["transformer-dropout"] ? y["transformer-dropout"].as<double>() : 0.1;

  const std::vector<int64_t> rows = read_tables(m, vocabs, y, where);
  const int64_t n = std::max(rows[0], rows[1]);
  c.vocab_size = n + 1;
  c.target_vocab_size = 0;
  c.pad_id = c.decoder_start_id = static_cast<int>(n);
  c.output_bias = true;
  c.dim_vocabs.clear();
  c.validate();

  auto get = [&](const std::string& name) {
    const auto it = arrays.find(name);
    REALMT_CHECK(it != arrays.end(), "{}: no tensor '{}'", npz, name);
    return npy_to_f32(it->second, npz + ": " + name);
  };
  auto add = [&](const std::string& name, const Tensor& t) { m.tensors.emplace_back(name, t); };
  auto table = [&](const std::string& name, int64_t rows) {
    const Tensor t = get(name);
    REALMT_CHECK(t.rank() == 2 && t.dim(0) == rows && t.dim(1) == c.dim_emb,
                 "{}: '{}' is {}, [{}, {}] expected", npz, name, t.shape().str(), rows, c.dim_emb);
    return add_rows(t, n + 1 - rows, 0.0f);
  };
  const std::string target_name = all || c.tied_embeddings_src ? "Wemb" : "decoder_Wemb";
  add("embeddings.weight", table(target_name, rows[1]));
  if (!c.source_target_tied()) add("source_embeddings.weight", table("encoder_Wemb", rows[0]));
  if (!c.target_output_tied())
    add("output.weight", add_rows(output_table(arrays, npz, get), n + 1 - rows[1], 0.0f));
  // The added entry's logit is -1e9 (+ h . 0): no probability, as in Marian, and finite.
  const Tensor bias = flag("output-omit-bias") ? Tensor::full(Shape{rows[1]}, 0.0f)
                                               : flat(get("decoder_ff_logit_out_b"));
  add("output.bias", add_rows(bias, n + 1 - rows[1], -1e9f));
  if (learned) {
    const Tensor wpos = get("Wpos");
    REALMT_CHECK(wpos.rank() == 2 && wpos.dim(1) == c.dim_emb && wpos.dim(0) >= 1,
                 "{}: 'Wpos' is {}, [P, {}] expected", npz, wpos.shape().str(), c.dim_emb);
    c.learned_positions = wpos.dim(0);
    add("positions", wpos);
  }
  for (const MarianParameter& p : marian_layer_parameters(c)) {
    std::vector<Tensor> parts;
    for (const std::string& name : p.marian)
      parts.push_back(p.vector ? flat(get(name)) : get(name));
    add(p.realmt, parts.size() == 1 ? parts[0]
                  : p.vector        ? ops::concat(parts, 0)
                                    : join_columns(parts));
  }
  check_parameters(m);
  return m;
}

}  // namespace realmt::convert
