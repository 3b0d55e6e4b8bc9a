// The model's architecture, as options (Marian names where the feature matches) and as the
// YAML stored in every checkpoint's metadata, so that a checkpoint alone can be translated.
#pragma once

#include <string>
#include <vector>

#include "common/enum_names.h"
#include "layers/attention.h"
#include "layers/embedding.h"
#include "ops/bias_activation.h"

namespace realmt {
class OptionSet;
}

namespace realmt::models {

// Where the layer norm sits: after the residual sum (Post-LN, which ADMIN needs) or before the
// sub-layer (Pre-LN, with a final norm a stack).
enum class Norm { kPost, kPre };
constexpr auto enum_names(Norm) {
  return std::to_array<EnumName<Norm>>({{Norm::kPost, "post"}, {Norm::kPre, "pre"}});
}

// ADMIN's omega initialisation (models/admin.h): a profiling pass (realmt-init, or realmt-train
// on its first batch), the closed form, or no omegas (plain Post-LN).
enum class AdminInit { kProfile, kClosedForm, kNone };
constexpr auto enum_names(AdminInit) {
  return std::to_array<EnumName<AdminInit>>({{AdminInit::kProfile, "profile"},
                                             {AdminInit::kClosedForm, "closed-form"},
                                             {AdminInit::kNone, "none"}});
}

struct ModelConfig {
  std::string type = "transformer";  // only the Transformer encoder-decoder
  int64_t vocab_size = 8000;      // joint SentencePiece vocabulary (from the .spm when training);
                                  // the source vocabulary when target_vocab_size differs
  int64_t target_vocab_size = 0;  // target vocabulary (decoder input and output); 0: vocab_size
  int enc_depth = 6;              // encoder layers
  int dec_depth = 6;              // decoder layers
  int64_t dim_emb = 512;          // model dimension D
  int heads = 8;                  // attention heads H (D = H * Dh)
  int64_t dim_ffn = 2048;         // feed-forward inner dimension F
  ops::Activation ffn_activation = ops::Activation::kRelu;  // relu | gelu | swish | gelu-sigmoid
  double dropout = 0.1;              // on every sub-layer output (residual branch) and embeddings
  double dropout_attention = 0.0;    // on attention probabilities
  double dropout_ffn = 0.0;          // inside the feed-forward, after the activation
  bool tied_embeddings_all = true;   // one table for source, target and output projection
  bool tied_embeddings = false;      // without _all: the target table is the output projection's
  bool tied_embeddings_src = false;  // without _all: the source and target tables are one
  bool output_bias = false;  // a bias on the output logits (Hugging Face's final_logits_bias)
  // sinusoidal | sinusoidal-halves | sinusoidal-marian | learned
  layers::Positions positions = layers::Positions::kSinusoidal;
  int64_t learned_positions =
      256;  // learned: rows of the position table (Marian's Wpos: its max-length)
  bool scale_embeddings = true;  // token embeddings times sqrt(D) before the positions are added
  double layer_norm_eps = 1e-5;  // epsilon of every layer norm (Marian: 1e-6)
  // Special ids of the vocabulary the model was trained with: realmt's (data/vocab.h) by default;
  // a converted Marian / Hugging Face model has eos 0, unk 1 and pad (= decoder start) last.
  int pad_id = 0;            // padding (masked; never produced)
  int unk_id = 1;            // unknown piece
  int eos_id = 3;            // end of sentence (appended to sources, ends outputs)
  int decoder_start_id = 2;  // the decoder's first input (realmt's <s>; never produced)
  // The decoder's first input is a zero vector (plus its position) instead of the start id's
  // embedding, as in Marian: a model that can be exported to Marian (realmt-convert --to marian).
  bool decoder_start_zero = false;
  Norm norm = Norm::kPost;  // post (Post-LN; needed by ADMIN) | pre (Pre-LN)
  // Pre-LN only, decoding: after the first step, the decoder self-attention's keys and values
  // (cached ones included) come from the stream before the norm, as Marian 1.12's Pre-LN decoder
  // computes them (it keeps the layers' raw inputs as its state); the first step, the encoder,
  // training and scoring use the normed stream, as Marian does.
  bool decoder_cache_unnormed = false;
  // RealFormer chains: none | sum | mean
  layers::ResidualMode residual_attention_encoder = layers::ResidualMode::kMean;
  layers::ResidualMode residual_attention_decoder = layers::ResidualMode::kMean;
  layers::ResidualMode residual_attention_cross = layers::ResidualMode::kMean;
  AdminInit admin_init = AdminInit::kProfile;  // ADMIN omega init: profile | closed-form | none
  // The dim-vocabs option as written: Marian gives one size a side ("dim-vocabs: [32000, 32000]");
  // declare() fills it from vocab_size (and target_vocab_size when set), from_yaml() reads them
  // back from it.
  std::vector<int> dim_vocabs;

  // Binds every field to its option (group "Model").
  void declare(OptionSet& options);
  // Checks ranges and combinations; throws naming the option.
  void validate() const;
  // Flat YAML map with Marian-style keys (the checkpoint metadata format).
  std::string to_yaml() const;
  static ModelConfig from_yaml(const std::string& yaml, const std::string& origin);
  // The target side's vocabulary size (target_vocab_size, or vocab_size when 0).
  int64_t target_vocab() const { return target_vocab_size > 0 ? target_vocab_size : vocab_size; }
  // Whether the source, target and output tables are one, and the realmt special ids are used.
  bool source_target_tied() const { return tied_embeddings_all || tied_embeddings_src; }
  bool target_output_tied() const { return tied_embeddings_all || tied_embeddings; }
  bool realmt_special_ids() const;
};

}  // namespace realmt::models
