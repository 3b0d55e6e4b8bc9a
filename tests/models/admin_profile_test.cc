// ADMIN's profiling pass against a profile computed here by hand: a naive f64 forward pass of a
// 2+2-layer Post-LN RealFormer written from the papers' formulas (not from the model's
// code), which takes the two population variances of every sub-layer from its outputs and
// runs ADMIN's recurrence (Liu et al. 2020): per stack r = 1; for each sub-layer i in order
// omega_i = r, r = sqrt(Var(x_{i-1} * omega_i) + Var(f_i(x_{i-1}))), x_i = LN(x_{i-1} omega_i +
// f_i). The model must set every omega to the same values and record the same variances.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/rng.h"
#include "models/admin.h"
#include "models/transformer.h"

namespace realmt::models {
namespace {

using Vec = std::vector<double>;
constexpr int64_t kB = 2, kS = 5, kT = 4, kD = 8, kH = 2, kF = 16, kV = 13;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Hand {
  const Transformer& model;
  std::vector<std::pair<std::string, double>> omegas;  // in forward order
  std::vector<std::pair<double, double>> variances;    // (Var(x omega), Var(f))

  Vec param(const std::string& name) const {
    const Tensor t = model.params()[name].value();
    return Vec(t.data<double>(), t.data<double>() + t.numel());
  }
  static double variance(const Vec& x) {  // population variance, two passes
    double mean = 0, ss = 0;
    for (double v : x) mean += v;
    mean /= double(x.size());
    for (double v : x) ss += (v - mean) * (v - mean);
    return ss / double(x.size());
  }
  // y [rows, out] = x [rows, in] W [in, col0 : col0 + out] + b [col0 : col0 + out], W [in, width]:
  // columns of a packed projection (Q|K|V, K|V) or the whole of a plain one.
  Vec linear(const Vec& x, const std::string& p, int64_t in, int64_t out, int64_t col0 = 0,
             int64_t width = 0) const {
    if (width == 0) width = out;
    const Vec w = param(p + ".weight"), b = param(p + ".bias");
    const int64_t rows = int64_t(x.size()) / in;
    Vec y(rows * out);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t o = 0; o < out; ++o) {
        double acc = b[col0 + o];
        for (int64_t i = 0; i < in; ++i) acc += x[r * in + i] * w[i * width + col0 + o];
        y[r * out + o] = acc;
      }
    return y;
  }
  Vec layer_norm(const Vec& x, const std::string& p) const {
    const Vec g = param(p + ".gamma"), b = param(p + ".beta");
    Vec y(x.size());
    for (size_t r = 0; r < x.size() / kD; ++r) {
      double mean = 0, var = 0;
      for (int64_t j = 0; j < kD; ++j) mean += x[r * kD + j] / kD;
      for (int64_t j = 0; j < kD; ++j) var += (x[r * kD + j] - mean) * (x[r * kD + j] - mean) / kD;
      for (int64_t j = 0; j < kD; ++j)
        y[r * kD + j] = (x[r * kD + j] - mean) / std::sqrt(var + 1e-5) * g[j] + b[j];
    }
    return y;
  }
  // Multi-head attention of q_in [B, Tq, D] over kv_in [B, Tk, D] with the running-mean
  // residual scores of its chain: S_l = QK^T / sqrt(Dh) + S_{l-1}, logits S_l / l,
  // P = softmax(logits + mask), out = concat_h(P V) Wo + bo. masked(b, i, j): key j hidden.
  template <typename Mask>
  Vec attention(const Vec& q_in, int64_t tq, const Vec& kv_in, int64_t tk, const std::string& p,
                Vec& chain, int l, Mask masked) const {
    const int64_t dh = kD / kH;
    // Self-attention packs Q|K|V in "<p>.qkv" [D, 3D]; cross-attention has "<p>.q" and K|V in
    // "<p>.kv" [D, 2D]. Head h is columns [h Dh, (h + 1) Dh) of each.
    const bool self = p.find(".self_attn") != std::string::npos;
    const Vec q =
        self ? linear(q_in, p + ".qkv", kD, kD, 0, 3 * kD) : linear(q_in, p + ".q", kD, kD);
    const Vec k = self ? linear(kv_in, p + ".qkv", kD, kD, kD, 3 * kD)
                       : linear(kv_in, p + ".kv", kD, kD, 0, 2 * kD);
    const Vec v = self ? linear(kv_in, p + ".qkv", kD, kD, 2 * kD, 3 * kD)
                       : linear(kv_in, p + ".kv", kD, kD, kD, 2 * kD);
    if (chain.empty()) chain.assign(kB * kH * tq * tk, 0.0);
    Vec ctx(kB * tq * kD, 0.0);
    for (int64_t b = 0; b < kB; ++b)
      for (int64_t h = 0; h < kH; ++h)
        for (int64_t i = 0; i < tq; ++i) {
          Vec logits(tk);
          double top = kNegInf;
          for (int64_t j = 0; j < tk; ++j) {
            double s = 0;
            for (int64_t d = 0; d < dh; ++d)
              s += q[(b * tq + i) * kD + h * dh + d] * k[(b * tk + j) * kD + h * dh + d];
            double& running = chain[((b * kH + h) * tq + i) * tk + j];
            running += s / std::sqrt(double(dh));
            logits[j] = masked(b, i, j) ? kNegInf : running / l;
            top = std::max(top, logits[j]);
          }
          double z = 0;
          for (double& x : logits) z += x = std::exp(x - top);
          for (int64_t j = 0; j < tk; ++j)
            for (int64_t d = 0; d < dh; ++d)
              ctx[(b * tq + i) * kD + h * dh + d] +=
                  logits[j] / z * v[(b * tk + j) * kD + h * dh + d];
        }
    return linear(ctx, p + ".o", kD, kD);
  }
  Vec ffn(const Vec& x, const std::string& p) const {
    Vec h = linear(x, p + ".w1", kD, kF);
    for (double& v : h) v = std::max(v, 0.0);
    return linear(h, p + ".w2", kF, kD);
  }
  // One ADMIN sub-layer: omega = r, record the variances, advance r, x <- LN(x omega + f(x)).
  template <typename F>
  void sublayer(Vec& x, double& r, const std::string& p, F f) {
    const double omega = r;
    Vec a = x;
    for (double& v : a) v *= omega;
    const Vec fx = f(x);
    omegas.emplace_back(p + ".omega", omega);
    variances.emplace_back(variance(a), variance(fx));
    r = std::sqrt(variance(a) + variance(fx));
    for (size_t i = 0; i < a.size(); ++i) a[i] += fx[i];
    x = layer_norm(a, p + ".norm");
  }
  Vec embed(const std::vector<int32_t>& ids, int64_t t) const {
    const Vec e = param("embeddings.weight");
    Vec x(kB * t * kD);
    for (int64_t b = 0; b < kB; ++b)
      for (int64_t pos = 0; pos < t; ++pos)
        for (int64_t i = 0; i < kD; ++i) {
          const double angle = pos / std::pow(10000.0, 2.0 * double(i / 2) / kD);
          x[(b * t + pos) * kD + i] = e[ids[b * t + pos] * kD + i] * std::sqrt(double(kD)) +
                                      (i % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return x;
  }

  void run(const std::vector<int32_t>& src, const std::vector<int32_t>& tgt_in) {
    auto pad = [&](int64_t b, int64_t, int64_t j) { return src[b * kS + j] == 0; };
    auto causal = [](int64_t, int64_t i, int64_t j) { return j > i; };
    Vec x = embed(src, kS), chain;
    double r = 1.0;
    for (int l = 0; l < 2; ++l) {
      const std::string p = "encoder.layers." + std::to_string(l);
      sublayer(x, r, p + ".self_attn", [&](const Vec& in) {
        return attention(in, kS, in, kS, p + ".self_attn", chain, l + 1, pad);
      });
      sublayer(x, r, p + ".ffn", [&](const Vec& in) { return ffn(in, p + ".ffn"); });
    }
    const Vec enc = x;
    Vec y = embed(tgt_in, kT), self_chain, cross_chain;
    r = 1.0;  // the decoder's own running value
    for (int l = 0; l < 2; ++l) {
      const std::string p = "decoder.layers." + std::to_string(l);
      sublayer(y, r, p + ".self_attn", [&](const Vec& in) {
        return attention(in, kT, in, kT, p + ".self_attn", self_chain, l + 1, causal);
      });
      sublayer(y, r, p + ".cross_attn", [&](const Vec& in) {
        return attention(in, kT, enc, kS, p + ".cross_attn", cross_chain, l + 1, pad);
      });
      sublayer(y, r, p + ".ffn", [&](const Vec& in) { return ffn(in, p + ".ffn"); });
    }
  }
};

TEST(Admin, ProfileMatchesHandComputedProfileOfTwoLayerModel) {
  ModelConfig c;
  c.vocab_size = kV;
  c.enc_depth = c.dec_depth = 2;
  c.dim_emb = kD;
  c.heads = kH;
  c.dim_ffn = kF;
  c.dropout = c.dropout_attention = c.dropout_ffn = 0.0;  // deterministic: both passes see the same
  c.norm = Norm::kPost;
  c.admin_init = AdminInit::kProfile;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      layers::ResidualMode::kMean;
  Transformer model(c);
  model.allocate(Device::cpu(), DType::kF64);
  model.init(3);
  // Non-zero biases and LayerNorm parameters, so that every parameter enters the profile.
  Generator g(17);
  for (int i = 0; i < model.params().size(); ++i) {
    const std::string& n = model.params().names()[i];
    if (n.find(".bias") == std::string::npos && n.find(".gamma") == std::string::npos &&
        n.find(".beta") == std::string::npos)
      continue;
    const Tensor t = model.params()[i].value();
    for (int64_t j = 0; j < t.numel(); ++j) t.data<double>()[j] += 0.2 * (g.uniform() - 0.5);
  }
  // Source padding in row 1, target padding in row 0.
  const std::vector<int32_t> src{5, 6, 7, 8, 3, 9, 10, 3, 0, 0}, tgt_in{2, 11, 12, 0, 2, 4, 5, 6},
      tgt_out{11, 12, 3, 0, 4, 5, 6, 3};

  Hand hand{model, {}, {}};
  hand.run(src, tgt_in);  // before profiling: the omegas are read from nowhere but r
  AdminProfiler profiler;
  ForwardContext ctx;
  ctx.profiler = &profiler;
  model.loss(Tensor::from_vector(src, {kB, kS}), Tensor::from_vector(tgt_in, {kB, kT}),
             Tensor::from_vector(tgt_out, {kB, kT}), 0.0, ctx);

  ASSERT_EQ(hand.omegas.size(), 4u + 6u);
  ASSERT_EQ(profiler.rows().size(), hand.omegas.size());
  for (size_t i = 0; i < hand.omegas.size(); ++i) {
    const auto& [name, omega] = hand.omegas[i];
    const AdminProfiler::Row& row = profiler.rows()[i];
    EXPECT_EQ(row.omega, name) << "sub-layer " << i;
    EXPECT_NEAR(row.value, omega, 1e-12 * omega) << name;
    EXPECT_NEAR(row.var_input, hand.variances[i].first, 1e-12 * hand.variances[i].first) << name;
    EXPECT_NEAR(row.var_branch, hand.variances[i].second, 1e-12 * hand.variances[i].second) << name;
    const Tensor w = model.params()[name].value();
    for (int64_t j = 0; j < w.numel(); ++j)
      ASSERT_EQ(w.data<double>()[j], row.value) << name << "[" << j << "]";
  }
  // The profile is not trivial: omegas grow along each stack (r > 1 after the first sub-layer).
  EXPECT_EQ(hand.omegas[0].second, 1.0);
  EXPECT_EQ(hand.omegas[4].second, 1.0);
  EXPECT_GT(hand.omegas[3].second, 1.2);
  EXPECT_GT(hand.omegas[9].second, 1.2);
}

}  // namespace
}  // namespace realmt::models
