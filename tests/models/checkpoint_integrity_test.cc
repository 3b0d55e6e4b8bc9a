// Checkpoints that must be refused at load: NaN or Inf weights, bytes changed inside tensor data
// (per-tensor CRC-32), another format version; and the header-only read of metadata.
#include <cmath>
#include <limits>

#include "models/checkpoint.h"
#include "models/safetensors.h"
#include "test_util.h"

namespace realmt::models::test {
namespace {

using graph::ParameterSet;

void declare(ParameterSet& p) {
  p.add("encoder.embed.weight", Shape{5, 4});
  p.add("decoder.omega", Shape{3});
  p.add("scale", Shape{});
}

class CheckpointIntegrity : public ::testing::Test {
 protected:
  void SetUp() override {
    declare(src_);
    src_.allocate(Device::cpu());
    for (int i = 0; i < src_.size(); ++i) {
      const Tensor& v = src_.values()[i];
      std::vector<float> x(v.numel());
      for (size_t j = 0; j < x.size(); ++j) x[j] = 0.5f + i + 0.25f * j;
      v.copy_from(Tensor::from_vector(x, v.shape()));
    }
    declare(dst_);
    dst_.allocate(Device::cpu());
  }
  // Sets element `at` of parameter `name` in src_.
  void set(const std::string& name, int64_t at, float value) {
    const Tensor& v = src_.values()[src_.index(name)];
    std::vector<float> x = v.to_vector<float>();
    x[size_t(at)] = value;
    v.copy_from(Tensor::from_vector(x, v.shape()));
  }
  // Byte offset in the file of element `at` of tensor `name`.
  uint64_t file_offset(const std::string& name, int64_t at) const {
    const std::string bytes = read_bytes(path_);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[size_t(i)]);
    return 8 + n + load_safetensors_header(path_).entry(name).begin + 4 * uint64_t(at);
  }
  ParameterSet src_, dst_;
  TempDir dir_;
  std::string path_ = dir_.file("model.safetensors");
};

TEST_F(CheckpointIntegrity, NaNOrInfWeightsAreRefusedNamingFileAndTensor) {
  set("encoder.embed.weight", 7, std::numeric_limits<float>::quiet_NaN());
  set("encoder.embed.weight", 9, std::numeric_limits<float>::infinity());
  save_parameters(path_, src_);
  expect_error([&] { load_parameters(path_, dst_); },
               {path_, "tensor 'encoder.embed.weight' holds 2 non-finite value(s)",
                "at element 7 of 20", "use an earlier checkpoint"});
  // The same for optimizer state (resume) ...
  save_arenas(path_, {{"adam.m", src_.values()}}, src_.names());
  Arena m(src_.shapes(), DType::kF32, Device::cpu());
  expect_error(
      [&] {
        load_arenas(path_, {{"adam.m", m}}, src_.names());
      },
      {"tensor 'adam.m.encoder.embed.weight' holds 2 non-finite"});
  // ... and for half-precision files widened on load (an all-ones exponent is Inf or NaN).
  std::vector<std::pair<std::string, Tensor>> halves;
  for (int i = 0; i < src_.size(); ++i) {
    std::vector<BFloat16> b;
    for (float x : src_.values()[i].to_vector<float>())
      b.push_back(BFloat16(std::isfinite(x) ? x : 1.f));
    halves.emplace_back(src_.names()[i], Tensor::from_vector(b, src_.shapes()[i]));
  }
  halves[1].second = Tensor::from_vector(
      std::vector<BFloat16>{BFloat16(1.f), BFloat16(-std::numeric_limits<float>::infinity()),
                            BFloat16(2.f)},
      Shape{3});
  save_safetensors(path_, halves);  // a foreign file: no format key, no checksums
  expect_error([&] { load_parameters(path_, dst_); },
               {"tensor 'decoder.omega' holds 1 non-finite", "-inf"});
}

TEST_F(CheckpointIntegrity, AChangedByteInsideTensorDataIsFoundByItsChecksum) {
  save_parameters(path_, src_);
  load_parameters(path_, dst_);  // intact
  EXPECT_EQ(load_safetensors_header(path_).metadata.count(kChecksumKey), 1u);
  // Flip the lowest mantissa bit of one value: still finite, still plausible, but not the saved
  // weight.
  std::string bytes = read_bytes(path_);
  bytes[file_offset("decoder.omega", 1)] ^= 1;
  write_bytes(path_, bytes);
  expect_error([&] { load_parameters(path_, dst_); },
               {path_, "tensor 'decoder.omega' is damaged", "CRC-32", "copy the file again"});
}

TEST_F(CheckpointIntegrity, ATensorLargerThanOneReadIsCheckedAcrossItsChunks) {
  // Loads check a file 4 MB at a time: a 6 MB tensor's checksum spans two reads, and a NaN in the
  // second one is reported at its place in the tensor, as the in-memory check does.
  ParameterSet big, dst;
  for (ParameterSet* p : {&big, &dst}) {
    p->add("big", Shape{1500000});
    p->add("small", Shape{3});
    p->allocate(Device::cpu());
  }
  std::vector<float> x(1500000);
  for (size_t j = 0; j < x.size(); ++j) x[j] = 0.001f * static_cast<float>(j % 1000);
  big.values()[0].copy_from(Tensor::from_vector(x, Shape{1500000}));
  save_parameters(path_, big);
  load_parameters(path_, dst);
  EXPECT_EQ(dst.values()[0].to_vector<float>(), x);
  std::string bytes = read_bytes(path_);
  const uint64_t data = bytes.size() - 1500003 * 4;  // the data buffer starts here
  bytes[data + 4 * 1200000 + 1] ^= 1;  // a mantissa bit of element 1,200,000, in the second read
  write_bytes(path_, bytes);
  expect_error([&] { load_parameters(path_, dst); }, {path_, "tensor 'big' is damaged", "CRC-32"});
  EXPECT_EQ(dst.values()[0].to_vector<float>(), x);  // nothing copied
  x[1200000] = std::numeric_limits<float>::quiet_NaN();
  big.values()[0].copy_from(Tensor::from_vector(x, Shape{1500000}));
  save_parameters(path_, big);
  for (const SafetensorsFile& f : {load_safetensors_header(path_), load_safetensors(path_)})
    expect_error([&] { verify_checkpoint(f); }, {path_, "tensor 'big' holds 1 non-finite value(s)",
                                                 "at element 1200000 of 1500000"});
}

TEST_F(CheckpointIntegrity, ChecksumListThatDoesNotMatchTheTensorsIsAnError) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (int i = 0; i < src_.size(); ++i) tensors.emplace_back(src_.names()[i], src_.values()[i]);
  save_safetensors(path_, tensors, {{kFormatKey, "1"}, {kChecksumKey, "00000000 11111111"}});
  expect_error([&] { load_parameters(path_, dst_); }, {path_, "lists 2 checksums for 3 tensors"});
}

TEST_F(CheckpointIntegrity, OtherFormatVersionIsRefusedFromTheHeaderAlone) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (int i = 0; i < src_.size(); ++i) tensors.emplace_back(src_.names()[i], src_.values()[i]);
  save_safetensors(path_, tensors, {{kFormatKey, "2"}});
  const SafetensorsFile header = load_safetensors_header(path_);
  EXPECT_EQ(header.names, src_.names());
  EXPECT_EQ(header.entry("decoder.omega").shape, Shape{3});
  expect_error([&] { header.get("decoder.omega"); }, {"whose header alone was read"});
  expect_error([&] { check_checkpoint_format(path_, header.metadata); },
               {path_, "checkpoint format '2'"});
  expect_error([&] { verify_checkpoint(load_safetensors(path_)); }, {"checkpoint format '2'"});
}

}  // namespace
}  // namespace realmt::models::test
