#include "models/model_config.h"

#include "common/options.h"
#include "core/error.h"

namespace realmt::models {

void ModelConfig::declare(OptionSet& o) {
  const std::string g = "Model";
  o.add_choice(g, "type", &type, {"transformer"}, "Model type (the Transformer encoder-decoder)");
  dim_vocabs = {static_cast<int>(vocab_size)};
  if (target_vocab_size > 0 && target_vocab_size != vocab_size)
    dim_vocabs.push_back(static_cast<int>(target_vocab_size));
  o.add(g, "dim-vocabs", &dim_vocabs,
        "Vocabulary sizes, one a side: training takes them from the vocabularies and sizes the "
        "ones it creates "
        "with them (a missing .spm: 32000 when 0); a converted model may have two sizes");
  o.add(g, "enc-depth", &enc_depth, "Number of encoder layers");
  o.add(g, "dec-depth", &dec_depth, "Number of decoder layers");
  o.add(g, "dim-emb", &dim_emb, "Model (embedding) dimension D");
  o.add(g, "transformer-heads", &heads, "Number of attention heads");
  o.add(g, "transformer-dim-ffn", &dim_ffn, "Inner dimension of the feed-forward sub-layers");
  o.add_enum(g, "transformer-ffn-activation", &ffn_activation, "Feed-forward activation");
  o.add(g, "transformer-dropout", &dropout, "Dropout on sub-layer outputs and embeddings");
  o.add(g, "transformer-dropout-attention", &dropout_attention,
        "Dropout on attention probabilities");
  o.add(g, "transformer-dropout-ffn", &dropout_ffn, "Dropout after the feed-forward activation");
  o.add(g, "tied-embeddings-all", &tied_embeddings_all, "Tie source, target and output embeddings");
  o.add(g, "tied-embeddings", &tied_embeddings,
        "Tie target embeddings and output layer (without tied-embeddings-all)");
  o.add(g, "tied-embeddings-src", &tied_embeddings_src,
        "Tie source and target embeddings (without tied-embeddings-all)");
  o.add(g, "output-bias", &output_bias, "A bias on the output layer's logits");
  o.add_enum(
      g, "transformer-positions", &positions,
      "Positions: sinusoidal (sin/cos interleaved), sinusoidal-halves (Hugging Face Marian), "
      "sinusoidal-marian (Marian, tensor2tensor), learned (a trained table shared by both sides, "
      "Marian's "
      "transformer-train-positions; Marian scales no embeddings then: transformer-scale-embeddings "
      "false)");
  o.add(g, "transformer-learned-positions", &learned_positions,
        "Rows of the learned position table (positions past it read its last row, as in Marian)");
  o.add(g, "transformer-scale-embeddings", &scale_embeddings,
        "Scale token embeddings by sqrt(dim-emb)");
  o.add(g, "layer-norm-eps", &layer_norm_eps, "Epsilon of the layer norms");
  o.add(g, "pad-id", &pad_id, "Padding id of the model's vocabulary");
  o.add(g, "unk-id", &unk_id, "Unknown-piece id of the model's vocabulary");
  o.add(g, "eos-id", &eos_id, "End-of-sentence id of the model's vocabulary");
  o.add(g, "decoder-start-id", &decoder_start_id,
        "First decoder input id (realmt's <s>; Marian: pad)");
  o.add(g, "decoder-start-zero", &decoder_start_zero,
        "The decoder starts from a zero vector (plus its position) as Marian's, not from <s>'s "
        "embedding: needed "
        "to export the model to Marian");
  o.add_enum(g, "transformer-norm", &norm, "Layer norm placement: post (needed by ADMIN) or pre");
  o.add(g, "transformer-decoder-cache-unnormed", &decoder_cache_unnormed,
        "Pre-LN decoding as Marian's: after the first step the decoder self-attention's keys and "
        "values come "
        "from the stream before the norm (set by realmt-convert --from marian)");
  o.add_enum(g, "residual-attention-encoder", &residual_attention_encoder,
             "RealFormer residual attention in encoder self-attention");
  o.add_enum(g, "residual-attention-decoder", &residual_attention_decoder,
             "RealFormer residual attention in decoder self-attention");
  o.add_enum(g, "residual-attention-cross", &residual_attention_cross,
             "RealFormer residual attention in encoder-decoder attention");
  o.add_enum(g, "admin-init", &admin_init,
             "ADMIN omega initialisation (profile: run realmt-init; none: plain Post-LN)");
}

std::string ModelConfig::to_yaml() const {
  ModelConfig copy = *this;
  OptionSet o("model", "model configuration");
  copy.declare(o);
  return o.dump_yaml();
}

ModelConfig ModelConfig::from_yaml(const std::string& yaml, const std::string& origin) {
  ModelConfig c;
  OptionSet o("model", "model configuration");
  c.declare(o);
  o.load_yaml_string(yaml, origin);
  REALMT_CHECK(!c.dim_vocabs.empty(), "{}: dim-vocabs is empty", origin);
  REALMT_CHECK(c.dim_vocabs.size() <= 2, "{}: dim-vocabs holds one size a side, got {}", origin,
               c.dim_vocabs.size());
  c.vocab_size = c.dim_vocabs[0];
  c.target_vocab_size =
      c.dim_vocabs.size() == 2 && c.dim_vocabs[1] != c.dim_vocabs[0] ? c.dim_vocabs[1] : 0;
  c.validate();
  return c;
}

void ModelConfig::validate() const {
  REALMT_CHECK(vocab_size >= 4, "dim-vocabs: a vocabulary needs at least the 4 special ids, got {}",
               vocab_size);
  REALMT_CHECK(enc_depth >= 1 && dec_depth >= 1,
               "enc-depth and dec-depth must be >= 1 (got {} and {})", enc_depth, dec_depth);
  REALMT_CHECK(dim_emb >= 2 && dim_emb % 2 == 0, "dim-emb must be even and positive, got {}",
               dim_emb);
  REALMT_CHECK(heads >= 1 && dim_emb % heads == 0,
               "transformer-heads ({}) must divide dim-emb ({})", heads, dim_emb);
  REALMT_CHECK(dim_ffn >= 1, "transformer-dim-ffn must be positive, got {}", dim_ffn);
  for (double p : {dropout, dropout_attention, dropout_ffn})
    REALMT_CHECK(p >= 0 && p < 1, "dropout probabilities must be in [0, 1), got {}", p);
  REALMT_CHECK(target_vocab() >= 4, "dim-vocabs: a target vocabulary needs at least 4 ids, got {}",
               target_vocab());
  REALMT_CHECK(!source_target_tied() || target_vocab() == vocab_size,
               "dim-vocabs: tied source and target embeddings need one vocabulary size, got {} and "
               "{} (untie them: "
               "tied-embeddings-all false, tied-embeddings-src false)",
               vocab_size, target_vocab());
  REALMT_CHECK(learned_positions >= 1, "transformer-learned-positions must be positive, got {}",
               learned_positions);
  REALMT_CHECK(layer_norm_eps > 0, "layer-norm-eps must be positive, got {}", layer_norm_eps);
  for (auto [name, id] : {std::pair{"pad-id", pad_id}, {"unk-id", unk_id}, {"eos-id", eos_id}})
    REALMT_CHECK(id >= 0 && id < target_vocab() && id < vocab_size,
                 "{} {} outside the vocabularies (sizes {} and {})", name, id, vocab_size,
                 target_vocab());
  REALMT_CHECK(decoder_start_id >= 0 && decoder_start_id < target_vocab(),
               "decoder-start-id {} outside the target vocabulary (size {})", decoder_start_id,
               target_vocab());
  REALMT_CHECK(
      pad_id != eos_id && unk_id != eos_id && unk_id != pad_id && decoder_start_id != eos_id,
      "pad-id {}, unk-id {}, eos-id {} must differ, and decoder-start-id {} from eos-id", pad_id,
      unk_id, eos_id, decoder_start_id);
  REALMT_CHECK(norm == Norm::kPre || !decoder_cache_unnormed,
               "transformer-decoder-cache-unnormed needs transformer-norm pre (Post-LN has no "
               "stream before a norm)");
  REALMT_CHECK(norm == Norm::kPost || admin_init == AdminInit::kNone,
               "admin-init {} needs transformer-norm post (ADMIN is defined for Post-LN); use "
               "admin-init none",
               enum_name(admin_init));
}

bool ModelConfig::realmt_special_ids() const {
  return pad_id == 0 && unk_id == 1 && decoder_start_id == 2 && eos_id == 3;
}

}  // namespace realmt::models
