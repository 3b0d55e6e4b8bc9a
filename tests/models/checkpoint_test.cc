#include "models/checkpoint.h"

#include <filesystem>
#include <fstream>

#include "core/runtime.h"
#include "models/safetensors.h"
#include "test_util.h"

namespace realmt::models::test {
namespace {

using graph::ParameterSet;

// A small model-like set; values are distinct per element so any mix-up shows.
void declare(ParameterSet& p) {
  p.add("encoder.layers.0.ffn.w1.weight", Shape{4, 3});
  p.add("encoder.layers.0.ffn.w1.bias", Shape{4});
  p.add("decoder.omega", Shape{3});
  p.add("scale", Shape{});
}

void fill(const ParameterSet& p, float base) {
  for (int i = 0; i < p.size(); ++i) {
    const Tensor& v = p.values()[i];
    std::vector<float> x(v.numel());
    for (size_t j = 0; j < x.size(); ++j) x[j] = base + 100.f * i + 0.25f * j;
    v.copy_from(Tensor::from_vector(x, v.shape()));
  }
}

std::vector<float> all_values(const ParameterSet& p) {
  std::vector<float> out;
  for (int i = 0; i < p.size(); ++i) {
    const auto v = p.values()[i].to_vector<float>();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

class Checkpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    declare(src_);
    src_.allocate(Device::cpu());
    fill(src_, 1.f);
    declare(dst_);
    dst_.allocate(Device::cpu());
  }
  ParameterSet src_, dst_;
  TempDir dir_;
  std::string path_ = dir_.file("model.safetensors");
};

TEST_F(Checkpoint, ParametersRoundTripWithMetadata) {
  save_parameters(path_, src_, {{kConfigKey, "enc-depth: 1\n"}});
  const Metadata meta = load_parameters(path_, dst_);
  EXPECT_EQ(meta.at(kFormatKey), "1");
  EXPECT_EQ(meta.at(kConfigKey), "enc-depth: 1\n");
  EXPECT_EQ(all_values(dst_), all_values(src_));
  // The file is plain safetensors under the parameters' own names, in their order.
  EXPECT_EQ(load_safetensors(path_).names, src_.names());
}

// Marian's model names (realmt-train --model model.npz): the safetensors go to model.safetensors,
// never under .npz, and the .npz name still loads them; a real Marian .npz is refused by name.
TEST_F(Checkpoint, MarianNamesAreWrittenAsSafetensorsFiles) {
  EXPECT_EQ(checkpoint_file("run/model.npz"), "run/model.safetensors");
  EXPECT_EQ(checkpoint_file("model.npz.best-bleu.npz"), "model.npz.best-bleu.safetensors");
  EXPECT_EQ(checkpoint_file("model.bin"), "model.safetensors");
  EXPECT_EQ(checkpoint_file("model.safetensors"), "model.safetensors");
  EXPECT_EQ(checkpoint_file("model.pt"), "model.pt");
  save_parameters(dir_.file("model.npz"), src_);
  EXPECT_FALSE(std::filesystem::exists(dir_.file("model.npz")));
  EXPECT_TRUE(std::filesystem::exists(dir_.file("model.safetensors")));
  load_parameters(dir_.file("model.npz"), dst_);
  EXPECT_EQ(all_values(dst_), all_values(src_));
  // A Marian model (a zip) without a realmt checkpoint beside it.
  std::ofstream(dir_.file("marian.npz"), std::ios::binary)
      << std::string("PK\x03\x04", 4) << "rest";
  try {
    load_parameters(dir_.file("marian.npz"), dst_);
    ADD_FAILURE() << "a Marian .npz was read as a checkpoint";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("realmt-convert --from marian"), std::string::npos)
        << e.what();
  }
}

// Saving copies device memory to the host; loading copies into device slots.
TEST_F(Checkpoint, CudaParametersRoundTrip) {
  if (device_count(DeviceType::kCuda) == 0) GTEST_SKIP() << "no CUDA device visible";
  ParameterSet gpu, back;
  declare(gpu);
  gpu.allocate(Device::cuda(0));
  gpu.values().flat().copy_from(src_.values().flat());
  save_parameters(path_, gpu);
  declare(back);
  back.allocate(Device::cuda(0));
  load_parameters(path_, back);
  EXPECT_TRUE(back.values()[0].device().is_cuda());
  EXPECT_EQ(all_values(back), all_values(src_));
  load_parameters(path_, dst_);  // and onto the CPU
  EXPECT_EQ(all_values(dst_), all_values(src_));
}

TEST_F(Checkpoint, MissingAndUnexpectedNamesAreListedWithClosestMatch) {
  ParameterSet other;
  other.add("encoder.layers.0.ffn.w1.weights", Shape{4, 3});  // renamed
  other.add("encoder.layers.0.ffn.w1.bias", Shape{4});
  other.add("decoder.omega", Shape{3});
  other.add("scale", Shape{});
  other.add("extra.thing", Shape{2});
  other.allocate(Device::cpu());
  save_parameters(path_, other);
  fill(dst_, 5.f);
  const auto before = all_values(dst_);
  expect_error([&] { load_parameters(path_, dst_); },
               {path_, "1 missing from the file, 2 unexpected in it",
                "missing 'encoder.layers.0.ffn.w1.weight' (closest in the file: "
                "'encoder.layers.0.ffn.w1.weights')",
                "unexpected 'extra.thing'", "unexpected 'encoder.layers.0.ffn.w1.weights'"});
  EXPECT_EQ(all_values(dst_), before);  // nothing copied
}

TEST_F(Checkpoint, UnexpectedTensorsMayBeIgnored) {
  ParameterSet bigger;
  declare(bigger);
  bigger.add("extra.thing", Shape{2});
  bigger.allocate(Device::cpu());
  fill(bigger, 1.f);
  save_parameters(path_, bigger);
  expect_error([&] { load_parameters(path_, dst_); },
               {"0 missing from the file, 1 unexpected", "'extra.thing'"});
  LoadOptions opt;
  opt.ignore_unexpected = true;
  load_parameters(path_, dst_, opt);
  EXPECT_EQ(all_values(dst_), all_values(src_));
}

TEST_F(Checkpoint, ShapeMismatchNamesTensorExpectedAndFound) {
  ParameterSet other;
  other.add("encoder.layers.0.ffn.w1.weight", Shape{3, 4});
  other.add("encoder.layers.0.ffn.w1.bias", Shape{4});
  other.add("decoder.omega", Shape{3});
  other.add("scale", Shape{1});
  other.allocate(Device::cpu());
  save_parameters(path_, other);
  expect_error([&] { load_parameters(path_, dst_); },
               {path_, "2 tensor(s) do not match",
                "tensor 'encoder.layers.0.ffn.w1.weight': shape [4, 3] expected, [3, 4] found",
                "tensor 'scale': shape [] expected, [1] found"});
}

TEST_F(Checkpoint, DTypeMismatchAndHalfWidening) {
  std::vector<std::pair<std::string, Tensor>> halves;
  std::vector<float> expected;
  for (int i = 0; i < src_.size(); ++i) {
    std::vector<BFloat16> b;
    for (float x : src_.values()[i].to_vector<float>()) {
      b.push_back(BFloat16(x));
      expected.push_back(static_cast<float>(b.back()));  // widening is exact: bf16 -> f32
    }
    halves.emplace_back(src_.names()[i], Tensor::from_vector(b, src_.shapes()[i]));
  }
  EXPECT_NE(expected,
            all_values(src_));  // some values did round, so the check below means something
  save_safetensors(path_, halves);
  load_parameters(path_, dst_);  // widened by default
  EXPECT_EQ(all_values(dst_), expected);

  LoadOptions strict;
  strict.widen_half_to_f32 = false;
  expect_error(
      [&] { load_parameters(path_, dst_, strict); },
      {"4 tensor(s) do not match", "tensor 'decoder.omega': dtype F32 expected, BF16 found"});

  halves[2].second = Tensor::zeros(Shape{3}, DType::kF64);  // never narrowed
  save_safetensors(path_, halves);
  expect_error(
      [&] { load_parameters(path_, dst_); },
      {"1 tensor(s) do not match", "tensor 'decoder.omega': dtype F32 expected, F64 found"});

  ParameterSet f16_params;
  declare(f16_params);
  f16_params.allocate(Device::cpu(), DType::kF16);
  halves[2].second = Tensor::from_vector(std::vector<BFloat16>(3, BFloat16(1.f)), Shape{3});
  save_safetensors(path_, halves);
  expect_error([&] { load_parameters(path_, f16_params); }, {"dtype F16 expected, BF16 found"});
}

TEST_F(Checkpoint, F16FileWidensIntoF32) {
  std::vector<std::pair<std::string, Tensor>> halves;
  for (int i = 0; i < src_.size(); ++i) {
    std::vector<Half> h;
    for (float x : src_.values()[i].to_vector<float>()) h.push_back(Half(x));
    halves.emplace_back(src_.names()[i], Tensor::from_vector(h, src_.shapes()[i]));
  }
  save_safetensors(path_, halves);
  load_parameters(path_, dst_);
  EXPECT_EQ(all_values(dst_), all_values(src_));
}

TEST_F(Checkpoint, NewerFormatIsRefusedForeignFileAccepted) {
  save_safetensors(path_, {}, {{kFormatKey, "2"}});
  ParameterSet empty;
  empty.allocate(Device::cpu());
  expect_error([&] { load_parameters(path_, empty); }, {"checkpoint format '2'", "reads format 1"});
  save_safetensors(path_, {}, {{"format", "pt"}});
  EXPECT_EQ(load_parameters(path_, empty).count(kFormatKey), 0u);
}

TEST_F(Checkpoint, UnallocatedSetIsAnError) {
  ParameterSet p;
  declare(p);
  expect_error([&] { save_parameters(path_, p); }, {"not allocated"});
  expect_error([&] { load_parameters(path_, p); }, {"allocate the parameters"});
}

TEST_F(Checkpoint, TrainingStateArenasRoundTrip) {
  Arena m(src_.shapes(), DType::kF32, Device::cpu()), v(src_.shapes(), DType::kF32, Device::cpu());
  for (int64_t i = 0; i < m.elements(); ++i) {
    m.flat().data<float>()[i] = 0.5f * i;
    v.flat().data<float>()[i] = -1.f * i;
  }
  const Metadata progress = {{kStepKey, "1234"},
                             {kEpochKey, "3"},
                             {kDataPositionKey, "file=2;line=99"},
                             {kRngStateKey, "philox:7:8"}};
  const std::string path = dir_.file("model.safetensors.optimizer");
  save_arenas(path, {{"adam.m", m}, {"adam.v", v}}, src_.names(), progress);
  const SafetensorsFile f = load_safetensors(path);
  EXPECT_EQ(f.size(), 8u);
  EXPECT_TRUE(f.contains("adam.m.encoder.layers.0.ffn.w1.weight"));
  EXPECT_TRUE(f.contains("adam.v.scale"));

  Arena m2(src_.shapes(), DType::kF32, Device::cpu()),
      v2(src_.shapes(), DType::kF32, Device::cpu());
  Metadata got = load_arenas(path, {{"adam.m", m2}, {"adam.v", v2}}, src_.names());
  for (const auto& [k, val] : progress) EXPECT_EQ(got.at(k), val);
  for (int i = 0; i < m.size(); ++i) {
    EXPECT_EQ(m2[i].to_vector<float>(), m[i].to_vector<float>());
    EXPECT_EQ(v2[i].to_vector<float>(), v[i].to_vector<float>());
  }
  // Prefixes must match, and the arenas must fit the names.
  expect_error(
      [&] {
        load_arenas(path, {{"adam.m", m2}}, src_.names());
      },
      {"4 unexpected", "'adam.v.scale'"});
  expect_error(
      [&] {
        load_arenas(path, {{"sgd.m", m2}, {"adam.v", v2}}, src_.names());
      },
      {"missing 'sgd.m.scale' (closest in the file: 'adam.m.scale')"});
  const std::vector<std::string> fewer(src_.names().begin(), src_.names().end() - 1);
  expect_error(
      [&] {
        save_arenas(path, {{"adam.m", m}}, fewer);
      },
      {"arena 'adam.m' has 4 slots for 3 names"});
}

}  // namespace
}  // namespace realmt::models::test
