// int8 inference of the whole model (models::Transformer::quantize): close to f32, smaller, and
// decode-only (training, saving and the released f32 weights are clear errors).
#include <gtest/gtest.h>

#include <cmath>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "models/checkpoint.h"
#include "layers/embedding.h"
#include "models/transformer.h"

namespace realmt::models {
namespace {

ModelConfig small_config() {
  ModelConfig c;
  c.vocab_size = 50;
  c.enc_depth = 2;
  c.dec_depth = 2;
  c.dim_emb = 32;
  c.heads = 4;
  c.dim_ffn = 64;
  c.dropout = 0.0;
  c.admin_init = AdminInit::kClosedForm;
  return c;
}

// Log-probabilities [2, V] of three incremental steps.
std::vector<Tensor> three_steps(const Transformer& model) {
  graph::NoGradGuard no_grad;
  const Tensor src =
      Tensor::from_vector(std::vector<int32_t>{5, 6, 7, 8, 3, 9, 10, 11, 3, 0}, {2, 5});
  DecoderState s = model.start(model.encode(src, ForwardContext{}));
  std::vector<Tensor> out;
  for (const std::vector<int32_t>& last : {std::vector<int32_t>{2, 2}, {12, 13}, {14, 15}})
    out.push_back(model.step(s, Tensor::from_vector(last, {2})));
  return out;
}

TEST(Quantize, Int8DecodingStaysCloseToF32) {
  Transformer f32(small_config()), int8(small_config());
  for (Transformer* m : {&f32, &int8}) {
    m->allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
    m->init(17);
  }
  const int64_t arena_before = int8.params().values().elements();
  int8.quantize();
  EXPECT_TRUE(int8.quantized());
  // The linear layers' f32 weights leave the arena: what is left is the embedding table (lookups
  // read it in f32) and the biases, norms and omegas.
  const graph::ParameterSet& p = int8.params();
  int64_t kept = 0;
  for (int i = 0; i < p.size(); ++i) {
    const bool linear_weight =
        p.names()[i] != "embeddings.weight" && p.names()[i].ends_with(".weight");
    EXPECT_EQ(p.released(i), linear_weight) << p.names()[i];
    if (!linear_weight) kept += p.shapes()[i].numel();
  }
  EXPECT_LT(p.values().elements(), kept + 64 * p.size());  // 64-byte aligned slots
  EXPECT_LT(p.values().elements(), arena_before / 4);
  const std::vector<Tensor> want = three_steps(f32), got = three_steps(int8);
  for (size_t t = 0; t < want.size(); ++t)
    for (int64_t r = 0; r < 2; ++r) {
      double max_diff = 0;
      int64_t best_want = 0, best_got = 0;
      for (int64_t v = 0; v < 50; ++v) {
        const double a = want[t].at(r * 50 + v), b = got[t].at(r * 50 + v);
        max_diff = std::max(max_diff, std::abs(a - b));
        if (a > want[t].at(r * 50 + best_want)) best_want = v;
        if (b > got[t].at(r * 50 + best_got)) best_got = v;
      }
      // 7-bit weights (no VNNI) and 8-bit activations through 2 + 2 layers of a random model; the
      // output layer's best candidates rescored in f32.
      EXPECT_LT(max_diff, 0.1) << "step " << t << " row " << r;
      // int8's best token is f32's or one f32 ranks within the error of it (a random model has
      // near ties).
      EXPECT_GT(want[t].at(r * 50 + best_got), want[t].at(r * 50 + best_want) - 0.2)
          << "step " << t << " row " << r;
    }
}

TEST(Quantize, LookupsReadTheF32TableBesideItsInt8Copy) {
  // Only the output layer multiplies by the int8 table: a lookup stays exact, since a quantized
  // input embedding is the largest int8 error (bench/RESULTS.md, "int8 accuracy").
  graph::ParameterSet p;
  layers::Embedding e(p, "embeddings", 40, 16);
  p.allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
  Generator gen(5);
  p.init(gen);
  const Tensor ids = Tensor::from_vector(std::vector<int32_t>{3, 17, 39, 0, 17, 8}, {2, 3});
  graph::NoGradGuard no_grad;
  const std::vector<float> want = e(ids, 2).value().to_vector<float>();
  e.quantize(e.weight().value());
  ASSERT_NE(e.quantized(), nullptr);
  EXPECT_EQ(e.quantized()->rows(), 40);
  EXPECT_EQ(e(ids, 2).value().to_vector<float>(), want);
}

TEST(Quantize, AQuantizedModelOnlyDecodes) {
  Transformer m(small_config());
  m.allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
  m.init(3);
  m.quantize();
  const Tensor src = Tensor::from_vector(std::vector<int32_t>{5, 6, 3}, {1, 3});
  const Tensor tgt = Tensor::from_vector(std::vector<int32_t>{2, 7, 8}, {1, 3});
  auto message = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message([&] { m.loss(src, tgt, tgt, 0.1, ForwardContext{}); }).find("only decodes"),
            std::string::npos);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("realmt_q_" + std::to_string(::getpid()) + ".safetensors"))
                               .string();
  EXPECT_NE(message([&] { save_parameters(path, m.params()); }).find("quantized"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_NE(message([&] { m.params()["decoder.layers.0.ffn.w1.weight"]; }).find("released"),
            std::string::npos);
  EXPECT_NE(message([&] { m.quantize(); }).find("twice"), std::string::npos);
  // A training model (with gradients) is not quantized.
  Transformer t(small_config());
  t.allocate(Device::cpu());
  EXPECT_NE(message([&] { t.quantize(); }).find("without gradients"), std::string::npos);
}

}  // namespace
}  // namespace realmt::models
