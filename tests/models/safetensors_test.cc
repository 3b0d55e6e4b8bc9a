#include "models/safetensors.h"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>

#include "test_util.h"

namespace realmt::models::test {
namespace {

constexpr DType kAll[] = {DType::kF32,  DType::kF64, DType::kF16,
                          DType::kBF16, DType::kI32, DType::kU8};

// A tensor of random bit patterns (NaN payloads, subnormals and all), to test bit-exactness.
Tensor random_bits(const Shape& shape, DType dtype, uint32_t seed) {
  Tensor t = Tensor::empty(shape, dtype);
  std::mt19937 rng(seed);
  auto* p = static_cast<unsigned char*>(t.raw());
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<unsigned char>(rng());
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST(Safetensors, DTypeNames) {
  for (DType t : kAll) EXPECT_EQ(parse_safetensors_dtype(safetensors_dtype_name(t)), t);
  EXPECT_EQ(std::string(safetensors_dtype_name(DType::kBF16)), "BF16");
  EXPECT_FALSE(parse_safetensors_dtype("F8_E4M3").has_value());
  EXPECT_FALSE(parse_safetensors_dtype("f32").has_value());
}

TEST(Safetensors, RoundTripIsBitExactForAllDTypesAndShapes) {
  TempDir dir;
  std::vector<std::pair<std::string, Tensor>> tensors;
  uint32_t seed = 1;
  for (DType t : kAll) {
    const std::string d = dtype_name(t);
    tensors.emplace_back(d + ".matrix", random_bits(Shape{3, 5}, t, seed++));
    tensors.emplace_back(d + ".scalar", random_bits(Shape{}, t, seed++));
    tensors.emplace_back(d + ".empty", random_bits(Shape{0, 4}, t, seed++));
    tensors.emplace_back(d + ".odd", random_bits(Shape{7}, t, seed++));  // misaligns what follows
    tensors.emplace_back(d + ".rank8", random_bits(Shape{1, 2, 1, 2, 1, 2, 1, 3}, t, seed++));
  }
  const std::string path = dir.file("all.safetensors");
  save_safetensors(path, tensors);
  const SafetensorsFile f = load_safetensors(path);
  ASSERT_EQ(f.size(), tensors.size());
  EXPECT_TRUE(f.metadata.empty());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, t] = tensors[i];
    SCOPED_TRACE(name);
    EXPECT_EQ(f.names[i], name);  // file order = save order
    ASSERT_TRUE(f.contains(name));
    const Tensor got = f.get(name);
    EXPECT_TRUE(got.device().is_cpu());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(got.raw()) % dtype_size(got.dtype()), 0u);
    EXPECT_TRUE(same_bytes(got, t));
  }
  EXPECT_FALSE(f.contains("nope"));
  expect_error([&] { f.get("nope"); }, {path, "no tensor named 'nope'"});
}

TEST(Safetensors, ViewsShareTheLoadedBufferAndOutliveTheFileObject) {
  TempDir dir;
  const std::string path = dir.file("v.safetensors");
  save_safetensors(path, {{"a", Tensor::from_vector<float>({1, 2, 3}, Shape{3})},
                          {"b", Tensor::from_vector<float>({4, 5}, Shape{2})}});
  Tensor a, b;
  {
    const SafetensorsFile f = load_safetensors(path);
    a = f.get("a");
    b = f.get("b");
    EXPECT_EQ(f.data_bytes(), 20u);
  }
  EXPECT_TRUE(a.shares_storage_with(b));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{4, 5}));
}

TEST(Safetensors, MetadataRoundTripsAndHeaderFollowsTheSpec) {
  TempDir dir;
  const std::string path = dir.file("m.safetensors");
  const std::map<std::string, std::string> meta = {
      {"realmt.config", "enc-depth: 6\ndim-emb: 512\nname: \"quoted\" \u00e9\n"}, {"empty", ""}};
  save_safetensors(path, {{"w", Tensor::from_vector<int32_t>({7, -8}, Shape{2})}}, meta);
  EXPECT_EQ(load_safetensors(path).metadata, meta);

  const std::string bytes = read_bytes(path);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);  // space-padded so the data starts aligned
  EXPECT_EQ(bytes.size(), 8 + n + 8);
  const std::string header = bytes.substr(8, n);
  EXPECT_EQ(header.front(), '{');
  EXPECT_NE(header.find(R"("w":{"dtype":"I32","shape":[2],"data_offsets":[0,8]})"),
            std::string::npos)
      << header;
  EXPECT_EQ(header.find_first_not_of(' ', header.rfind('}') + 1), std::string::npos);
  EXPECT_EQ(bytes.substr(8 + n), bytes_of<int32_t>({7, -8}));
}

TEST(Safetensors, NoMetadataKeyWhenMetadataIsEmptyAndEmptyFileWorks) {
  TempDir dir;
  const std::string path = dir.file("e.safetensors");
  save_safetensors(path, {});
  const std::string bytes = read_bytes(path);
  EXPECT_EQ(bytes, le64(8) + "{}      ");
  const SafetensorsFile f = load_safetensors(path);
  EXPECT_EQ(f.size(), 0u);
  EXPECT_EQ(f.data_bytes(), 0u);
}

TEST(Safetensors, ReadsAFileFromAnIndependentWriter) {
  // Header order differs from data order, padding absent, metadata first, as other writers do.
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"z.bias":{"dtype":"BF16","shape":[2],"data_offsets":[16,20]},)"
      R"("a.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
      R"("ids":{"dtype":"U8","shape":[3],"data_offsets":[20,23]},)"
      R"("x":{"dtype":"F64","shape":[],"data_offsets":[23,31]}})";
  const std::string data = bytes_of<float>({1.f, -2.f, 0.5f, 3.f}) +
                           bytes_of<uint16_t>({0x3f80, 0xc000}) + std::string("\x01\x02\xff", 3) +
                           bytes_of<double>({2.5});
  TempDir dir;
  const std::string path = dir.file("ext.safetensors");
  write_bytes(path, raw_safetensors(header, data));
  const SafetensorsFile f = load_safetensors(path);
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"format", "pt"}}));
  EXPECT_EQ(f.names, (std::vector<std::string>{"a.weight", "z.bias", "ids", "x"}));
  EXPECT_EQ(f.get("a.weight").shape(), (Shape{2, 2}));
  EXPECT_EQ(f.get("a.weight").to_vector<float>(), (std::vector<float>{1.f, -2.f, 0.5f, 3.f}));
  EXPECT_EQ(f.get("z.bias").at(0), 1.0);
  EXPECT_EQ(f.get("z.bias").at(1), -2.0);
  EXPECT_EQ(f.get("ids").to_vector<uint8_t>(), (std::vector<uint8_t>{1, 2, 255}));
  const Tensor x = f.get("x");  // at offset 23: returned as an aligned copy
  EXPECT_EQ(x.rank(), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x.raw()) % 8, 0u);
  EXPECT_EQ(x.item(), 2.5);
}

TEST(Safetensors, SaveRejectsDuplicateAndReservedNames) {
  TempDir dir;
  const std::string path = dir.file("bad.safetensors");
  const Tensor t = Tensor::zeros(Shape{2});
  expect_error([&] { save_safetensors(path, {{"a", t}, {"a", t}}); }, {path, "'a' given twice"});
  expect_error([&] { save_safetensors(path, {{"__metadata__", t}}); }, {"cannot be a tensor name"});
  expect_error([&] { save_safetensors(path, {{"u", Tensor()}}); }, {"'u' is undefined"});
  EXPECT_TRUE(dir.list().empty());
}

}  // namespace
}  // namespace realmt::models::test
