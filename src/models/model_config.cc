#include "models/model_config.h"

#include "common/options.h"
#include "core/error.h"

namespace realmt::models {

void ModelConfig::declare(OptionSet& o) {
  const std::string g = "Model";
  o.add_choice(g, "type", &type, {"transformer"}, "Model type (the Transformer encoder-decoder)");
  dim_vocabs = {static_cast<int>(vocab_size)};
  o.add(g, "dim-vocabs", &dim_vocabs,
        "Size of the joint vocabulary (training takes it from the SentencePiece model; Marian's one-a-side list is "
        "accepted)");
  o.add(g, "enc-depth", &enc_depth, "Number of encoder layers");
  o.add(g, "dec-depth", &dec_depth, "Number of decoder layers");
  o.add(g, "dim-emb", &dim_emb, "Model (embedding) dimension D");
  o.add(g, "transformer-heads", &heads, "Number of attention heads");
  o.add(g, "transformer-dim-ffn", &dim_ffn, "Inner dimension of the feed-forward sub-layers");
  o.add_enum(g, "transformer-ffn-activation", &ffn_activation, "Feed-forward activation");
  o.add(g, "transformer-dropout", &dropout, "Dropout on sub-layer outputs and embeddings");
  o.add(g, "transformer-dropout-attention", &dropout_attention, "Dropout on attention probabilities");
  o.add(g, "transformer-dropout-ffn", &dropout_ffn, "Dropout after the feed-forward activation");
  o.add(g, "tied-embeddings-all", &tied_embeddings_all, "Tie source, target and output embeddings (required)");
  o.add_enum(g, "transformer-norm", &norm, "Layer norm placement: post (needed by ADMIN) or pre");
  o.add_enum(g, "residual-attention-encoder", &residual_attention_encoder,
             "RealFormer residual attention in encoder self-attention");
  o.add_enum(g, "residual-attention-decoder", &residual_attention_decoder,
             "RealFormer residual attention in decoder self-attention");
  o.add_enum(g, "residual-attention-cross", &residual_attention_cross,
             "RealFormer residual attention in encoder-decoder attention");
  o.add_enum(g, "admin-init", &admin_init, "ADMIN omega initialisation (profile: run realmt-init; none: plain Post-LN)");
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
  c.vocab_size = c.dim_vocabs[0];
  c.validate();
  return c;
}

void ModelConfig::validate() const {
  REALMT_CHECK(vocab_size >= 4, "dim-vocabs: a vocabulary needs at least the 4 special ids, got {}", vocab_size);
  REALMT_CHECK(enc_depth >= 1 && dec_depth >= 1, "enc-depth and dec-depth must be >= 1 (got {} and {})", enc_depth,
               dec_depth);
  REALMT_CHECK(dim_emb >= 2 && dim_emb % 2 == 0, "dim-emb must be even and positive, got {}", dim_emb);
  REALMT_CHECK(heads >= 1 && dim_emb % heads == 0, "transformer-heads ({}) must divide dim-emb ({})", heads, dim_emb);
  REALMT_CHECK(dim_ffn >= 1, "transformer-dim-ffn must be positive, got {}", dim_ffn);
  for (double p : {dropout, dropout_attention, dropout_ffn})
    REALMT_CHECK(p >= 0 && p < 1, "dropout probabilities must be in [0, 1), got {}", p);
  REALMT_CHECK(tied_embeddings_all, "tied-embeddings-all: realmt models use one joint vocabulary; set it true");
  REALMT_CHECK(norm == Norm::kPost || admin_init == AdminInit::kNone,
               "admin-init {} needs transformer-norm post (ADMIN is defined for Post-LN); use admin-init none",
               enum_name(admin_init));
}

}  // namespace realmt::models
