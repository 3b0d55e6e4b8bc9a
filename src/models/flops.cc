#include "models/flops.h"

namespace realmt::models {

double training_flops_per_target_token(const ModelConfig& c, double s, double t) {
  const double d = static_cast<double>(c.dim_emb), f = static_cast<double>(c.dim_ffn), r = s / t;
  const double enc = r * c.enc_depth * (4 * d * d + 2 * d * f);
  const double dec = c.dec_depth * (6 * d * d + 2 * d * f) + r * c.dec_depth * 2 * d * d;
  const double out = static_cast<double>(c.vocab_size) * d;
  const double attn = 12 * d * (c.enc_depth * s * r + c.dec_depth * t + c.dec_depth * s);
  return 6 * (enc + dec + out) + attn;
}

}  // namespace realmt::models
