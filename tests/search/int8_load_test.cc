// Loading a checkpoint for int8 decoding (search::load_model with Quantize::kInt8): each weight is
// quantized as it is read, so the f32 model is never in memory, and the result is the model that
// quantizing the loaded f32 model gives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/allocator.h"
#include "models/checkpoint.h"
#include "search/model_loader.h"
#include "tiny_model.h"

namespace realmt::search {
namespace {

namespace fs = std::filesystem;

// Big enough that the f32 weights dwarf the allocator's rounding: V 1000, D 64, F 256, 2 + 2
// layers.
models::ModelConfig config() {
  models::ModelConfig c;
  c.vocab_size = 1000;
  c.enc_depth = 2;
  c.dec_depth = 2;
  c.dim_emb = 64;
  c.heads = 4;
  c.dim_ffn = 256;
  c.dropout = 0.0;
  c.admin_init = models::AdminInit::kClosedForm;
  return c;
}

class Int8Load : public ::testing::Test {
 protected:
  void SetUp() override {
    (void)test::kOneThread;
    dir_ = fs::temp_directory_path() / ("realmt_int8_load_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "model.safetensors").string();
    models::Transformer m(config());
    m.allocate(Device::cpu(), DType::kF32, graph::Gradients::kNo);
    m.init(5);
    models::save_parameters(path_, m.params(), {{models::kConfigKey, m.config().to_yaml()}});
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string path_;
};

// Log-probabilities [2, V] of three incremental steps.
std::vector<Tensor> three_steps(const models::Transformer& model) {
  graph::NoGradGuard no_grad;
  const Tensor src =
      Tensor::from_vector(std::vector<int32_t>{5, 6, 7, 8, 3, 9, 10, 11, 3, 0}, {2, 5});
  models::DecoderState s = model.start(model.encode(src, models::ForwardContext{}));
  std::vector<Tensor> out;
  for (const std::vector<int32_t>& last : {std::vector<int32_t>{2, 2}, {12, 13}, {14, 15}})
    out.push_back(model.step(s, Tensor::from_vector(last, {2})));
  return out;
}

TEST_F(Int8Load, NeverHoldsTheF32Weights) {
  // What the int8 model needs: its int8 weights (values, scales, sums per output row), the
  // parameters kept in f32 (the embedding table, for lookups; biases, norms, omegas), the table's
  // int8 copy (for the output layer) and, while loading, one f32 linear weight at a time.
  auto reference = load_model(path_, Device::cpu());
  reference->quantize();
  const graph::ParameterSet& q = reference->params();
  const size_t f32_bytes =
      static_cast<size_t>(q.numel()) * 4;  // every parameter, released ones included
  const size_t kept_bytes = static_cast<size_t>(q.values().elements()) * 4;
  const int64_t v = config().vocab_size, d = config().dim_emb;
  size_t int8_bytes = static_cast<size_t>(v * d + 8 * v), largest_f32 = 0;
  for (int i = 0; i < q.size(); ++i) {
    if (!q.released(i)) continue;
    // One byte a weight, 8 bytes (scale, sum) an output row: a linear weight [Din, Dout] has Dout.
    const Shape& s = q.shapes()[i];
    int8_bytes += static_cast<size_t>(s.numel() + 8 * s[1]);
    largest_f32 = std::max(largest_f32, static_cast<size_t>(s.numel()) * 4);
  }
  const size_t slack =
      64 << 10;  // the allocator's rounding of ~100 blocks, positions, small temporaries
  const size_t bound = int8_bytes + kept_bytes + largest_f32 + slack;
  ASSERT_LT(bound, f32_bytes) << "the test model must be big enough to tell the two apart";

  Allocator& alloc = allocator_for(Device::cpu());
  alloc.release_cached();
  alloc.reset_peak();
  const size_t before = alloc.stats().allocated_bytes;
  auto int8 = load_model(path_, Device::cpu(), Quantize::kInt8);
  const size_t peak = alloc.stats().peak_allocated_bytes - before;
  EXPECT_LE(peak, bound) << "int8 loading held " << peak
                         << " bytes at its peak; the f32 weights are " << f32_bytes;
  EXPECT_TRUE(int8->quantized());
  EXPECT_EQ(int8->params().values().elements() * 4, static_cast<int64_t>(kept_bytes));

  // The same model as quantizing the loaded f32 model: the same weights, the same
  // log-probabilities.
  const std::vector<Tensor> want = three_steps(*reference), got = three_steps(*int8);
  for (size_t t = 0; t < want.size(); ++t)
    EXPECT_EQ(want[t].to_vector<float>(), got[t].to_vector<float>()) << "step " << t;
}

TEST_F(Int8Load, ReleasedParametersNeedAReceiver) {
  models::Transformer m(config());
  m.allocate_int8(Device::cpu());
  try {
    models::load_parameters(path_, m.params());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("' was released and nothing receives its value"),
              std::string::npos)
        << e.what();
  }
  // A parameter int8 keeps in f32 (a bias) is not one to quantize.
  const int bias = m.params().index("decoder.layers.0.ffn.w1.bias");
  try {
    m.quantize_weight(bias, Tensor::zeros({256}, DType::kF32));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "'decoder.layers.0.ffn.w1.bias' is not one that int8 keeps quantized"),
              std::string::npos)
        << e.what();
  }
  // Before its weights are set, the model names what is missing.
  try {
    graph::NoGradGuard no_grad;
    m.encode(Tensor::from_vector(std::vector<int32_t>{5, 3}, {1, 2}), models::ForwardContext{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("was released"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace realmt::search
