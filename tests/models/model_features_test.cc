// The Transformer's options for converted Marian / Hugging Face models (models/model_config.h):
// the three position layouts against their formulas, embeddings without the sqrt(D) scale,
// untied source / target / output tables of different sizes, the output bias, other special ids
// (padding, decoder start), the layer norm epsilon; gradients by finite differences with all of
// them on, and incremental decoding against the full forward pass.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/reduce.h"
#include "models/transformer.h"
#include "ops/softmax.h"

namespace realmt::models {
namespace {

using layers::Positions;

// A Marian-convention model: eos 0, unk 1, pad 9 (the last of the source vocabulary) which also
// starts the decoder; source vocabulary 10, target 12; untied tables, output bias, halves.
ModelConfig marian_config() {
  ModelConfig c;
  c.vocab_size = 10;
  c.target_vocab_size = 12;
  c.enc_depth = 2;
  c.dec_depth = 2;
  c.dim_emb = 8;
  c.heads = 2;
  c.dim_ffn = 16;
  c.dropout = 0.0;
  c.admin_init = AdminInit::kNone;
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      layers::ResidualMode::kNone;
  c.ffn_activation = ops::Activation::kSwish;
  c.tied_embeddings_all = false;
  c.output_bias = true;
  c.positions = Positions::kSinusoidalHalves;
  c.scale_embeddings = false;
  c.layer_norm_eps = 1e-6;
  c.eos_id = 0;
  c.unk_id = 1;
  c.pad_id = 9;
  c.decoder_start_id = 9;
  return c;
}

// Random values in every parameter (the output bias too: init leaves it 0).
void randomize(Transformer& model, uint64_t seed) {
  model.init(seed);
  Generator gen(seed + 1);
  const auto& params = model.params();
  if (!params.contains("output.bias")) return;
  const Tensor v = params["output.bias"].value();
  for (int64_t i = 0; i < v.numel(); ++i) {
    const double x = gen.uniform() - 0.5;
    if (v.dtype() == DType::kF64)
      v.data<double>()[i] = x;
    else
      v.data<float>()[i] = static_cast<float>(x);
  }
}

TEST(ModelFeatures, PositionLayoutsFollowTheirFormulas) {
  graph::ParameterSet params;
  const int64_t d = 8;
  layers::Embedding inter(params, "a", 5, d, {Positions::kSinusoidal, true});
  layers::Embedding halves(params, "b", 5, d, {Positions::kSinusoidalHalves, true});
  layers::Embedding marian(params, "c", 5, d, {Positions::kSinusoidalMarian, true});
  const Tensor pi = inter.positions(0, 7, DType::kF64, Device::cpu());
  const Tensor ph = halves.positions(0, 7, DType::kF64, Device::cpu());
  const Tensor pm = marian.positions(3, 4, DType::kF64, Device::cpu());  // rows 3..6
  for (int64_t p = 0; p < 7; ++p)
    for (int64_t i = 0; i < d / 2; ++i) {
      const double w = std::pow(10000.0, -2.0 * i / d);  // Vaswani's / Hugging Face's frequencies
      EXPECT_NEAR(pi.at(p * d + 2 * i), std::sin(p * w), 1e-12);
      EXPECT_NEAR(pi.at(p * d + 2 * i + 1), std::cos(p * w), 1e-12);
      EXPECT_NEAR(ph.at(p * d + i), std::sin(p * w), 1e-12);
      EXPECT_NEAR(ph.at(p * d + d / 2 + i), std::cos(p * w), 1e-12);
      if (p < 3) continue;
      const double wm = std::exp(-std::log(10000.0) * i / (d / 2 - 1.0));  // tensor2tensor's
      EXPECT_NEAR(pm.at((p - 3) * d + i), std::sin(p * wm), 1e-6);
      EXPECT_NEAR(pm.at((p - 3) * d + d / 2 + i), std::cos(p * wm), 1e-6);
    }
  // The layouts differ (position 1, dimension 1: cos(1) against sin(10000^(-2/8)) ...).
  EXPECT_GT(std::abs(pi.at(d + 1) - ph.at(d + 1)), 0.1);
  EXPECT_GT(std::abs(ph.at(d + 1) - marian.positions(1, 1, DType::kF64, Device::cpu()).at(1)),
            1e-3);
}

TEST(ModelFeatures, EmbeddingScaleIsOptional) {
  for (bool scale : {true, false}) {
    graph::ParameterSet params;
    layers::Embedding e(params, "e", 6, 4, {.positions = Positions::kSinusoidal, .scale = scale});
    params.allocate(Device::cpu(), DType::kF64);
    Generator gen(3);
    params.init(gen);
    const Tensor ids = Tensor::from_vector(std::vector<int32_t>{5, 2}, {1, 2});
    const Tensor out = e(ids, 4).value();  // positions 4 and 5
    const Tensor table = e.weight().value(), pos = e.positions(4, 2, DType::kF64, Device::cpu());
    for (int64_t t = 0; t < 2; ++t)
      for (int64_t j = 0; j < 4; ++j) {
        const double row = table.at((t == 0 ? 5 : 2) * 4 + j);
        EXPECT_NEAR(out.at(t * 4 + j), (scale ? 2.0 : 1.0) * row + pos.at(t * 4 + j), 1e-12)
            << scale;
      }
  }
}

TEST(ModelFeatures, UntiedTablesHaveTheirNamesAndSizes) {
  ModelConfig c = marian_config();
  Transformer none(c);
  const auto& p = none.params();
  ASSERT_TRUE(p.contains("source_embeddings.weight"));
  EXPECT_EQ(p.shapes()[p.index("source_embeddings.weight")], Shape({10, 8}));
  EXPECT_EQ(p.shapes()[p.index("embeddings.weight")], Shape({12, 8}));
  EXPECT_EQ(p.shapes()[p.index("output.weight")], Shape({12, 8}));
  EXPECT_EQ(p.shapes()[p.index("output.bias")], Shape({12}));
  c.tied_embeddings = true;  // target = output (Marian's tied-embeddings)
  Transformer target_output(c);
  EXPECT_FALSE(target_output.params().contains("output.weight"));
  EXPECT_TRUE(target_output.params().contains("source_embeddings.weight"));
  c.tied_embeddings = false;
  c.tied_embeddings_src = true;  // source = target: one vocabulary size
  EXPECT_THROW(Transformer{c}, Error);
  c.target_vocab_size = 0;
  Transformer source_target(c);
  EXPECT_FALSE(source_target.params().contains("source_embeddings.weight"));
  EXPECT_TRUE(source_target.params().contains("output.weight"));
  // The default model keeps its one table and no other: existing checkpoints load as before.
  ModelConfig plain = marian_config();
  plain = ModelConfig{};
  plain.vocab_size = 20;
  plain.dim_emb = 8;
  plain.heads = 2;
  plain.dim_ffn = 8;
  Transformer tied(plain);
  EXPECT_FALSE(tied.params().contains("source_embeddings.weight"));
  EXPECT_FALSE(tied.params().contains("output.weight"));
  EXPECT_FALSE(tied.params().contains("output.bias"));
}

// Each table feeds what it should: the source table the encoder, the target table the decoder's
// input, the output table and bias the logits (log_probs, the fused output_topk and logits agree).
TEST(ModelFeatures, EachTableFeedsItsSide) {
  Transformer model(marian_config());
  model.allocate(Device::cpu());
  randomize(model, 4);
  graph::NoGradGuard no_grad;
  const Tensor src = Tensor::from_vector(std::vector<int32_t>{4, 5, 0}, {1, 3});
  const Tensor tgt = Tensor::from_vector(std::vector<int32_t>{9, 11}, {1, 2});
  auto run = [&] {
    const Encoded enc = model.encode(src, ForwardContext{});
    return std::pair{
        enc.out.value().to_vector<float>(),
        model.logits(model.decode(enc, tgt, ForwardContext{})).value().to_vector<float>()};
  };
  const auto [enc0, logits0] = run();
  auto bump = [&](const std::string& name, int64_t element) {
    const Tensor w = model.params()[name].value();
    w.data<float>()[element] += 1.0f;
  };
  bump("embeddings.weight", 11 * 8 + 1);  // a target row the decoder reads
  auto [enc1, logits1] = run();
  EXPECT_EQ(enc1, enc0);
  EXPECT_NE(logits1, logits0);
  bump("source_embeddings.weight", 5 * 8 + 2);
  auto [enc2, logits2] = run();
  EXPECT_NE(enc2, enc1);
  bump("output.bias", 7);  // exactly +1 on every logit of token 7, nothing else
  auto [enc3, logits3] = run();
  for (size_t i = 0; i < logits3.size(); ++i)
    EXPECT_FLOAT_EQ(logits3[i], logits2[i] + (i % 12 == 7 ? 1.0f : 0.0f));
  // The fused output layer (the beam search's) agrees with log_softmax(logits).
  const Encoded enc = model.encode(src, ForwardContext{});
  DecoderState st = model.start(enc);
  const Tensor h = model.step_hidden(st, Tensor::from_vector(std::vector<int32_t>{9}, {1}));
  const Tensor lp = model.log_probs(h);
  const ops::LinearTopkResult r = model.output_topk(h, Tensor(), {.k = 12, .also_token = 0});
  for (int64_t j = 0; j < 12; ++j)
    EXPECT_NEAR(r.values.at(j), lp.at(r.indices.data<int32_t>()[j]), 1e-5);
  EXPECT_NEAR(r.also.at(0), lp.at(0), 1e-5);
  double total = 0;
  for (int64_t v = 0; v < 12; ++v) total += std::exp(lp.at(v));
  EXPECT_NEAR(total, 1.0, 1e-5);
}

// The pad id masks source positions and is ignored by the loss, whatever its value.
TEST(ModelFeatures, PadIdMasksAndIsIgnored) {
  Transformer model(marian_config());
  model.allocate(Device::cpu());
  randomize(model, 5);
  graph::NoGradGuard no_grad;
  const Tensor alone = Tensor::from_vector(std::vector<int32_t>{4, 5, 0}, {1, 3});
  const Tensor padded = Tensor::from_vector(std::vector<int32_t>{4, 5, 0, 9, 9}, {1, 5});
  const Tensor a = model.encode(alone, ForwardContext{}).out.value();
  const Tensor b = model.encode(padded, ForwardContext{}).out.value();
  for (int64_t i = 0; i < 3 * 8; ++i) EXPECT_NEAR(a.at(i), b.at(i), 1e-5);
  // Id 0 is a token (eos) here: a source ending in 0 is not padding.
  const Tensor zero_padded = Tensor::from_vector(std::vector<int32_t>{4, 5, 0, 0, 0}, {1, 5});
  const Tensor z = model.encode(zero_padded, ForwardContext{}).out.value();
  double diff = 0;
  for (int64_t i = 0; i < 3 * 8; ++i) diff += std::abs(z.at(i) - a.at(i));
  EXPECT_GT(diff, 1e-3);
  const Tensor in = Tensor::from_vector(std::vector<int32_t>{9, 4, 9, 9}, {2, 2});
  const Tensor out = Tensor::from_vector(std::vector<int32_t>{4, 0, 0, 9}, {2, 2});
  const Tensor src = Tensor::from_vector(std::vector<int32_t>{4, 0, 5, 0}, {2, 2});
  EXPECT_EQ(model.loss(src, in, out, 0.0, ForwardContext{}).target_tokens, 3);
}

TEST(ModelFeatures, LayerNormEpsilonIsUsed) {
  ModelConfig c = marian_config();
  c.layer_norm_eps = 1e-5;
  Transformer a(c);
  c.layer_norm_eps = 10.0;  // large enough to change every normalised value
  Transformer b(c);
  a.allocate(Device::cpu());
  b.allocate(Device::cpu());
  randomize(a, 6);
  randomize(b, 6);
  graph::NoGradGuard no_grad;
  const Tensor src = Tensor::from_vector(std::vector<int32_t>{4, 5, 0}, {1, 3});
  const Tensor ea = a.encode(src, ForwardContext{}).out.value(),
               eb = b.encode(src, ForwardContext{}).out.value();
  EXPECT_GT(std::abs(ea.at(0) - eb.at(0)), 1e-3);
}

// Learned positions with a table of 3 rows: the inputs' 4th position reads the last row (Marian's
// clamp).
ModelConfig with_positions(Positions pos) {
  ModelConfig c = marian_config();
  c.positions = pos;
  c.learned_positions = 3;
  return c;
}

TEST(ModelFeatures, GradientsMatchFiniteDifferencesWithEveryOption) {
  for (Positions pos :
       {Positions::kSinusoidalHalves, Positions::kSinusoidalMarian, Positions::kLearned}) {
    ModelConfig c = with_positions(pos);
    c.ffn_activation =
        pos == Positions::kSinusoidalMarian ? ops::Activation::kGelu : ops::Activation::kSwish;
    Transformer model(c);
    model.allocate(Device::cpu(), DType::kF64);
    randomize(model, 7);
    const Tensor src = Tensor::from_vector(std::vector<int32_t>{4, 5, 6, 0, 7, 8, 0, 9}, {2, 4});
    const Tensor in = Tensor::from_vector(std::vector<int32_t>{9, 10, 11, 9, 4, 5}, {2, 3});
    const Tensor out = Tensor::from_vector(std::vector<int32_t>{10, 11, 0, 4, 5, 0}, {2, 3});
    auto loss = [&] { return model.loss(src, in, out, 0.1, ForwardContext{}).loss; };
    graph::backward(loss());
    const auto& params = model.params();
    int checked = 0;
    for (int i = 0; i < params.size(); ++i) {
      const Tensor v = params[i].value();
      double* pv = v.data<double>();
      for (int64_t e = 0; e < v.numel(); e += std::max<int64_t>(1, v.numel() / 3)) {
        const double orig = pv[e];
        graph::NoGradGuard no_grad;
        pv[e] = orig + 1e-6;
        const double up = loss().value().item();
        pv[e] = orig - 1e-6;
        const double down = loss().value().item();
        pv[e] = orig;
        const double numeric = (up - down) / 2e-6;
        EXPECT_NEAR(params[i].grad().data<double>()[e], numeric, 1e-6 * (1 + std::abs(numeric)))
            << params.names()[i] << "[" << e << "]";
        ++checked;
      }
    }
    EXPECT_GT(checked, 80);
  }
}

TEST(ModelFeatures, IncrementalDecodingEqualsFullForward) {
  for (Positions pos :
       {Positions::kSinusoidalHalves, Positions::kSinusoidalMarian, Positions::kLearned}) {
    const ModelConfig c = with_positions(pos);
    Transformer model(c);
    model.allocate(Device::cpu());
    randomize(model, 8);
    graph::NoGradGuard no_grad;
    const Tensor src = Tensor::from_vector(std::vector<int32_t>{4, 5, 6, 0, 7, 0, 9, 9}, {2, 4});
    const Encoded enc = model.encode(src, ForwardContext{});
    const std::vector<int32_t> in{9, 10, 11, 4, 9, 4, 5, 6};
    const Tensor full = ops::log_softmax(
        model.logits(model.decode(enc, Tensor::from_vector(in, {2, 4}), ForwardContext{})).value());
    DecoderState state = model.start(enc);
    for (int64_t t = 0; t < 4; ++t) {
      const Tensor step =
          model.step(state, Tensor::from_vector(std::vector<int32_t>{in[t], in[4 + t]}, {2}));
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t v = 0; v < 12; ++v)
          EXPECT_NEAR(step.at(r * 12 + v), full.at((r * 4 + t) * 12 + v), 2e-5)
              << enum_name(pos) << " t=" << t;
    }
  }
}

// A learned-position model trains: its table ("positions", shared by both sides) gets gradients
// from both, and a few steps of gradient descent lower the loss.
TEST(ModelFeatures, LearnedPositionsTrain) {
  Transformer model(with_positions(Positions::kLearned));
  model.allocate(Device::cpu());
  randomize(model, 11);
  ASSERT_TRUE(model.params().contains("positions"));
  const Tensor src = Tensor::from_vector(std::vector<int32_t>{4, 5, 6, 7, 7, 8, 4, 9}, {2, 4});
  const Tensor in = Tensor::from_vector(std::vector<int32_t>{9, 10, 11, 9, 4, 5}, {2, 3});
  const Tensor out = Tensor::from_vector(std::vector<int32_t>{10, 11, 0, 4, 5, 0}, {2, 3});
  double first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    model.params().zero_grad();
    const graph::Var loss = model.loss(src, in, out, 0.0, ForwardContext{}).loss;
    (step == 0 ? first : last) = loss.value().item();
    graph::backward(loss);
    const auto& params = model.params();
    for (int i = 0; i < params.size(); ++i) {
      const Tensor v = params[i].value(), g = params[i].grad();
      if (params.names()[i] == "positions" && step == 0) {
        double norm = 0;
        for (int64_t e = 0; e < g.numel(); ++e) norm += std::abs(g.data<float>()[e]);
        EXPECT_GT(norm, 0.0) << "no gradient reaches the position table";
      }
      for (int64_t e = 0; e < v.numel(); ++e) v.data<float>()[e] -= 0.05f * g.data<float>()[e];
    }
  }
  EXPECT_LT(last, first - 0.05) << "loss " << first << " -> " << last;
}

TEST(ModelFeatures, ConfigRoundTripsThroughYaml) {
  const ModelConfig c = marian_config();
  const ModelConfig back = ModelConfig::from_yaml(c.to_yaml(), "test");
  EXPECT_EQ(back.vocab_size, 10);
  EXPECT_EQ(back.target_vocab(), 12);
  EXPECT_FALSE(back.tied_embeddings_all);
  EXPECT_TRUE(back.output_bias);
  EXPECT_EQ(back.positions, Positions::kSinusoidalHalves);
  EXPECT_FALSE(back.scale_embeddings);
  EXPECT_DOUBLE_EQ(back.layer_norm_eps, 1e-6);
  EXPECT_EQ(back.ffn_activation, ops::Activation::kSwish);
  EXPECT_EQ(back.pad_id, 9);
  EXPECT_EQ(back.eos_id, 0);
  EXPECT_EQ(back.unk_id, 1);
  EXPECT_EQ(back.decoder_start_id, 9);
  // A config written before these options (as older checkpoints hold) reads as realmt's defaults.
  const ModelConfig old =
      ModelConfig::from_yaml("dim-vocabs: [100]\ndim-emb: 16\ntransformer-heads: 2\n", "old");
  EXPECT_TRUE(old.tied_embeddings_all);
  EXPECT_EQ(old.target_vocab(), 100);
  EXPECT_FALSE(old.output_bias);
  EXPECT_EQ(old.positions, Positions::kSinusoidal);
  EXPECT_TRUE(old.scale_embeddings);
  EXPECT_TRUE(old.realmt_special_ids());
  // Marian's one-size-a-side list with equal sizes is one vocabulary.
  EXPECT_EQ(
      ModelConfig::from_yaml("dim-vocabs: [100, 100]\ndim-emb: 16\ntransformer-heads: 2\n", "m")
          .target_vocab_size,
      0);
}

TEST(ModelFeatures, BadSpecialIdsAreRefused) {
  ModelConfig c = marian_config();
  c.pad_id = 12;  // outside the source vocabulary of 10
  EXPECT_THROW(c.validate(), Error);
  c = marian_config();
  c.decoder_start_id = 0;  // = eos
  EXPECT_THROW(c.validate(), Error);
  c = marian_config();
  c.unk_id = 0;
  EXPECT_THROW(c.validate(), Error);
}

}  // namespace
}  // namespace realmt::models
