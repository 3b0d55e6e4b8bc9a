// The Transformer as a whole: gradients of the full model by finite differences (f64), ADMIN's
// profiling recurrence and closed form, incremental decoding against the full forward pass,
// checkpoint round trips.
#include "models/transformer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <unistd.h>

#include <filesystem>

#include "graph/reduce.h"
#include "models/admin.h"
#include "models/checkpoint.h"
#include "models/safetensors.h"
#include "ops/softmax.h"

namespace realmt::models {
namespace {

ModelConfig tiny_config(const std::string& admin, const std::string& residual,
                        const std::string& norm = "post") {
  ModelConfig c;
  c.vocab_size = 13;
  c.enc_depth = 2;
  c.dec_depth = 2;
  c.dim_emb = 8;
  c.heads = 2;
  c.dim_ffn = 16;
  c.dropout = 0.0;
  c.norm = parse_enum<Norm>(norm, "transformer-norm");
  c.admin_init = parse_enum<AdminInit>(admin, "admin-init");
  c.residual_attention_encoder = c.residual_attention_decoder = c.residual_attention_cross =
      parse_enum<layers::ResidualMode>(residual, "residual attention");
  return c;
}

// src [2, 5] with padding in row 1; target rows of length 4 with padding in row 0.
struct ToyBatch {
  Tensor src = Tensor::from_vector(std::vector<int32_t>{5, 6, 7, 8, 3, 9, 10, 3, 0, 0}, {2, 5});
  Tensor tgt_in = Tensor::from_vector(std::vector<int32_t>{2, 11, 12, 0, 2, 4, 5, 6}, {2, 4});
  Tensor tgt_out = Tensor::from_vector(std::vector<int32_t>{11, 12, 3, 0, 4, 5, 6, 3}, {2, 4});
};

TEST(Transformer, WholeModelGradientMatchesFiniteDifferencesInF64) {
  for (const char* residual : {"mean", "sum"}) {
    Transformer model(tiny_config("closed-form", residual));
    model.allocate(Device::cpu(), DType::kF64);
    model.init(7);
    ToyBatch b;
    auto loss = [&] { return model.loss(b.src, b.tgt_in, b.tgt_out, 0.1, ForwardContext{}).loss; };
    graph::backward(loss());
    const auto& params = model.params();
    int checked = 0;
    for (int i = 0; i < params.size(); ++i) {
      const Tensor v = params[i].value();
      const Tensor g = params[i].grad();
      double* pv = v.data<double>();
      // A few elements of every parameter, spread over it.
      for (int64_t e = 0; e < v.numel(); e += std::max<int64_t>(1, v.numel() / 3)) {
        const double orig = pv[e];
        const double eps = 1e-6;
        graph::NoGradGuard no_grad;
        pv[e] = orig + eps;
        const double up = loss().value().item();
        pv[e] = orig - eps;
        const double down = loss().value().item();
        pv[e] = orig;
        const double numeric = (up - down) / (2 * eps);
        EXPECT_NEAR(g.data<double>()[e], numeric, 1e-6 * (1 + std::abs(numeric)))
            << residual << " " << params.names()[i] << "[" << e << "]";
        ++checked;
      }
    }
    EXPECT_GT(checked, 100);
  }
}

TEST(Transformer, PreNormGradientAlsoChecks) {
  Transformer model(tiny_config("none", "mean", "pre"));
  model.allocate(Device::cpu(), DType::kF64);
  model.init(3);
  ToyBatch b;
  graph::backward(model.loss(b.src, b.tgt_in, b.tgt_out, 0.0, ForwardContext{}).loss);
  const auto& params = model.params();
  const int i = params.index("encoder.final_norm.gamma");
  double* pv = params[i].value().data<double>();
  const double orig = pv[1];
  graph::NoGradGuard no_grad;
  pv[1] = orig + 1e-6;
  const double up =
      model.loss(b.src, b.tgt_in, b.tgt_out, 0.0, ForwardContext{}).loss.value().item();
  pv[1] = orig - 1e-6;
  const double down =
      model.loss(b.src, b.tgt_in, b.tgt_out, 0.0, ForwardContext{}).loss.value().item();
  pv[1] = orig;
  EXPECT_NEAR(params[i].grad().data<double>()[1], (up - down) / 2e-6, 1e-6);
}

TEST(Admin, ClosedFormMatchesAdminTorchTable) {
  // ADMIN paper: N -> sqrt((N+1)/ln(N+1) - 1).
  EXPECT_NEAR(admin_closed_form_omega(12), 2.017, 5e-4);
  EXPECT_NEAR(admin_closed_form_omega(18), 2.335, 5e-4);
  EXPECT_NEAR(admin_closed_form_omega(36), 3.041, 5e-4);
  EXPECT_NEAR(admin_closed_form_omega(120), 4.922, 5e-4);
  EXPECT_NEAR(admin_closed_form_omega(200), 6.075, 5e-4);
}

TEST(Admin, ProfileSatisfiesItsRecurrence) {
  ModelConfig c = tiny_config("profile", "mean");
  c.dropout = 0.1;
  c.dim_emb = 16;
  c.enc_depth = 3;
  Transformer model(c);
  model.allocate(Device::cpu());
  model.init(11);
  ToyBatch b;
  AdminProfiler profiler;
  Generator gen(5);
  ForwardContext ctx;
  ctx.gen = &gen;
  ctx.profiler = &profiler;
  model.loss(b.src, b.tgt_in, b.tgt_out, 0.0, ctx);
  const auto& rows = profiler.rows();
  ASSERT_EQ(static_cast<int>(rows.size()), model.encoder_sublayers() + model.decoder_sublayers());
  for (size_t i = 0; i < rows.size(); ++i) {
    const bool first_of_stack = i == 0 || i == static_cast<size_t>(model.encoder_sublayers());
    if (first_of_stack) {
      EXPECT_EQ(rows[i].value, 1.0) << rows[i].omega;
    } else {
      // omega_i = sqrt(Var(x_{i-1} omega_{i-1}) + Var(f_{i-1}))
      EXPECT_NEAR(rows[i].value, std::sqrt(rows[i - 1].var_input + rows[i - 1].var_branch), 1e-12)
          << rows[i].omega;
      // x_{i-1} is a LayerNorm output (gamma 1, beta 0): Var(x omega) = omega^2 (1 - O(eps)).
      EXPECT_NEAR(rows[i].var_input, rows[i].value * rows[i].value,
                  1e-3 * rows[i].value * rows[i].value);
    }
    // The model's omega vectors hold the profiled values.
    const Tensor w = model.params()[rows[i].omega].value();
    EXPECT_FLOAT_EQ(static_cast<float>(w.at(0)), static_cast<float>(rows[i].value));
    EXPECT_FLOAT_EQ(static_cast<float>(w.at(w.numel() - 1)), static_cast<float>(rows[i].value));
  }
}

TEST(Transformer, IncrementalDecodingEqualsFullForward) {
  for (const char* residual : {"none", "mean", "sum"}) {
    Transformer model(tiny_config("closed-form", residual));
    model.allocate(Device::cpu());
    model.init(5);
    ToyBatch b;
    graph::NoGradGuard no_grad;
    const Encoded enc = model.encode(b.src, ForwardContext{});
    // Full (teacher-forced) decoder pass over row-wise identical inputs.
    const Tensor in = Tensor::from_vector(std::vector<int32_t>{2, 11, 12, 4, 2, 4, 5, 6}, {2, 4});
    const Tensor full =
        ops::log_softmax(model.logits(model.decode(enc, in, ForwardContext{})).value());
    DecoderState state = model.start(enc);
    for (int64_t t = 0; t < 4; ++t) {
      const Tensor last = Tensor::from_vector(
          std::vector<int32_t>{in.data<int32_t>()[t], in.data<int32_t>()[4 + t]}, {2});
      const Tensor step = model.step(state, last);  // [2, V]
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t v = 0; v < 13; ++v)
          EXPECT_NEAR(step.at(r * 13 + v), full.at((r * 4 + t) * 13 + v), 2e-5)
              << residual << " t=" << t;
    }
  }
}

TEST(Transformer, ReorderFollowsTheChosenRows) {
  Transformer model(tiny_config("closed-form", "mean"));
  model.allocate(Device::cpu());
  model.init(5);
  ToyBatch b;
  graph::NoGradGuard no_grad;
  const Encoded enc = model.encode(b.src, ForwardContext{});
  DecoderState s = model.start(enc), swapped = model.start(enc);
  model.step(s, Tensor::from_vector(std::vector<int32_t>{2, 2}, {2}));
  model.step(swapped, Tensor::from_vector(std::vector<int32_t>{2, 2}, {2}));
  model.reorder(swapped, {1, 0}, /*same_sources=*/false);
  const Tensor a = model.step(s, Tensor::from_vector(std::vector<int32_t>{7, 8}, {2}));
  const Tensor c = model.step(swapped, Tensor::from_vector(std::vector<int32_t>{8, 7}, {2}));
  for (int64_t v = 0; v < 13; ++v) {
    EXPECT_FLOAT_EQ(static_cast<float>(a.at(v)), static_cast<float>(c.at(13 + v)));
    EXPECT_FLOAT_EQ(static_cast<float>(a.at(13 + v)), static_cast<float>(c.at(v)));
  }
}

// Rows gathered in place (widened to more rows, repeated, moved onto rows that are read later,
// then compacted) decode exactly as states that were never reordered.
TEST(Transformer, InPlaceReorderEqualsFreshStates) {
  Transformer model(tiny_config("closed-form", "sum"));
  model.allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
  model.init(6);
  ToyBatch b;
  graph::NoGradGuard no_grad;
  const Encoded enc = model.encode(b.src, ForwardContext{});
  // Histories of the rows after each reorder, as (source row, tokens fed).
  DecoderState s = model.start(enc, {.max_rows = 5, .initial_capacity = 1});  // capacity grows too
  model.step(s, Tensor::from_vector(std::vector<int32_t>{2, 2}, {2}));
  model.reorder(s, {1, 0, 0, 1, 1}, false);  // widen: 2 -> 5 rows, row 0 overwritten and read
  model.step(s, Tensor::from_vector(std::vector<int32_t>{5, 6, 7, 8, 9}, {5}));
  // Rows now: source 1 fed 2 5; source 0 fed 2 6; source 0 fed 2 7; source 1 fed 2 8; source 1 fed
  // 2 9.
  model.reorder(s, {3, 2, 1, 0, 4}, true);  // a beam move: every source row staged first
  model.step(s, Tensor::from_vector(std::vector<int32_t>{4, 4, 4, 4, 4}, {5}));
  model.reorder(s, {3, 0}, false);  // compaction to two rows of source 1
  const Tensor got = model.step(s, Tensor::from_vector(std::vector<int32_t>{10, 11}, {2}));
  const std::vector<std::pair<int, std::vector<int32_t>>> want_rows{{1, {2, 5, 4, 10}},
                                                                    {1, {2, 8, 4, 11}}};
  for (int r = 0; r < 2; ++r) {
    const auto& [src_row, fed] = want_rows[r];
    Encoded one;
    one.out = graph::Var(enc.out.value().narrow0(src_row, src_row + 1).clone());
    one.mask = enc.mask.narrow0(src_row, src_row + 1).clone();
    DecoderState fresh = model.start(one);
    Tensor want;
    for (int32_t tok : fed)
      want = model.step(fresh, Tensor::from_vector(std::vector<int32_t>{tok}, {1}));
    for (int64_t v = 0; v < 13; ++v)
      EXPECT_NEAR(got.at(r * 13 + v), want.at(v), 1e-5) << "row " << r << " token " << v;
  }
}

TEST(Transformer, CheckpointWithConfigRoundTripsExactly) {
  Transformer model(tiny_config("closed-form", "mean"));
  model.allocate(Device::cpu());
  model.init(9);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("realmt_model_rt_" + std::to_string(::getpid()) + ".safetensors"))
                               .string();
  save_parameters(path, model.params(), {{kConfigKey, model.config().to_yaml()}});
  const SafetensorsFile f = load_safetensors(path);
  const ModelConfig c = ModelConfig::from_yaml(f.metadata.at(kConfigKey), path);
  EXPECT_EQ(c.to_yaml(), model.config().to_yaml());
  Transformer loaded(c);
  loaded.allocate(Device::cpu());
  load_parameters(path, loaded.params());
  ToyBatch b;
  graph::NoGradGuard no_grad;
  const double l1 =
      model.loss(b.src, b.tgt_in, b.tgt_out, 0.1, ForwardContext{}).loss.value().item();
  const double l2 =
      loaded.loss(b.src, b.tgt_in, b.tgt_out, 0.1, ForwardContext{}).loss.value().item();
  EXPECT_EQ(l1, l2);
  std::filesystem::remove(path);
}

TEST(ModelConfig, ErrorsNameTheOption) {
  ModelConfig c = tiny_config("profile", "mean", "pre");
  EXPECT_THROW(c.validate(), Error);
  c = tiny_config("none", "mean");
  c.heads = 3;
  EXPECT_THROW(c.validate(), Error);
  EXPECT_THROW(ModelConfig::from_yaml("enc-deph: 3\n", "x.yml"), Error);
}

}  // namespace
}  // namespace realmt::models
