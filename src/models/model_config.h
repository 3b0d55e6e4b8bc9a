// The model's architecture, as options (Marian names where the feature matches) and as the
// YAML stored in every checkpoint's metadata, so that a checkpoint alone can be translated.
#pragma once

#include <string>
#include <vector>

namespace realmt {
class OptionSet;
}

namespace realmt::models {

struct ModelConfig {
  std::string type = "transformer";       // only the Transformer encoder-decoder
  int64_t vocab_size = 8000;              // joint SentencePiece vocabulary (from the .spm when training)
  int enc_depth = 6;                      // encoder layers
  int dec_depth = 6;                      // decoder layers
  int64_t dim_emb = 512;                  // model dimension D
  int heads = 8;                          // attention heads H (D = H * Dh)
  int64_t dim_ffn = 2048;                 // feed-forward inner dimension F
  std::string ffn_activation = "relu";    // relu | gelu | swish
  double dropout = 0.1;                   // on every sub-layer output (residual branch) and embeddings
  double dropout_attention = 0.0;         // on attention probabilities
  double dropout_ffn = 0.0;               // inside the feed-forward, after the activation
  bool tied_embeddings_all = true;        // one table for source, target and output projection
  std::string norm = "post";              // post (Post-LN; needed by ADMIN) | pre (Pre-LN)
  std::string residual_attention_encoder = "mean";  // RealFormer chain: none | sum | mean
  std::string residual_attention_decoder = "mean";
  std::string residual_attention_cross = "mean";
  std::string admin_init = "profile";     // ADMIN omega init: profile | closed-form | none
  // The dim-vocabs option as written: Marian gives one size a side ("dim-vocabs: [32000, 32000]");
  // declare() fills it from vocab_size, from_yaml() reads vocab_size back from it.
  std::vector<int> dim_vocabs;

  // Binds every field to its option (group "Model").
  void declare(OptionSet& options);
  // Checks ranges and combinations; throws naming the option.
  void validate() const;
  // Flat YAML map with Marian-style keys (the checkpoint metadata format).
  std::string to_yaml() const;
  static ModelConfig from_yaml(const std::string& yaml, const std::string& origin);
};

}  // namespace realmt::models
