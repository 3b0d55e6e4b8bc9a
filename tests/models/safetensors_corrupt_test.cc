// Every class of broken or foreign file is rejected with a message naming the file and,
// where there is one, the tensor and the field.
#include "models/safetensors.h"

#include "test_util.h"

namespace realmt::models::test {
namespace {

class Corrupt : public ::testing::Test {
 protected:
  // Writes bytes to model.safetensors and expects loading to fail with every fragment.
  void expect_rejected(const std::string& bytes, std::initializer_list<std::string> fragments) {
    write_bytes(path_, bytes);
    expect_error([&] { load_safetensors(path_); }, fragments);
    expect_error([&] { load_safetensors(path_); }, {path_});
  }
  // A header with one F32 entry named w.
  static std::string one(const std::string& fields) { return R"({"w":{)" + fields + "}}"; }

  TempDir dir_;
  std::string path_ = dir_.file("model.safetensors");
};

TEST_F(Corrupt, ValidBaselineLoads) {
  write_bytes(path_, raw_safetensors(one(R"("dtype":"F32","shape":[2],"data_offsets":[0,8])"),
                                     std::string(8, 'x')));
  EXPECT_EQ(load_safetensors(path_).get("w").numel(), 2);
}

TEST_F(Corrupt, TruncatedAtEveryPoint) {
  save_safetensors(path_,
                   {{"a", Tensor::zeros(Shape{3, 4})}, {"b", Tensor::zeros(Shape{5}, DType::kF64)}},
                   {{"k", "v"}});
  const std::string good = read_bytes(path_);
  uint64_t n = 0;
  std::memcpy(&n, good.data(), 8);
  expect_rejected("", {"not a safetensors file", "0 bytes"});
  expect_rejected(good.substr(0, 5), {"not a safetensors file", "5 bytes"});
  expect_rejected(good.substr(0, 8),
                  {"truncated: header says " + std::to_string(n) + " bytes, file has 8"});
  expect_rejected(good.substr(0, 8 + n / 2), {"truncated: header says"});
  expect_rejected(good.substr(0, 8 + n),
                  {"tensor 'a'", "run past the end of the data buffer (0 bytes)"});
  expect_rejected(good.substr(0, good.size() - 1),
                  {"tensor 'b'", "data_offsets [48, 88]", "(87 bytes)"});
  expect_rejected(good + "extra", {"data buffer has 93 bytes but the tensors cover 88"});
}

TEST_F(Corrupt, HeaderSizeFieldFlippedOrForeign) {
  const std::string body = one(R"("dtype":"F32","shape":[1],"data_offsets":[0,4])") + "abcd";
  expect_rejected(le64(5000) + body, {"truncated: header says 5000 bytes, file has"});
  expect_rejected(le64(uint64_t(1) << 40) + body, {"not a safetensors file", "limit 100 MB"});
  expect_rejected(le64(~uint64_t(0)) + body, {"not a safetensors file"});
  expect_rejected("PK\x03\x04 this is a zip file, really", {"not a safetensors file"});
  // Size field too small: the header is cut inside the JSON.
  expect_rejected(le64(10) + body, {"not a safetensors file", "not valid JSON"});
}

TEST_F(Corrupt, BadJsonAndNonObjectHeaders) {
  expect_rejected(raw_safetensors(R"({"w": {"dtype": "F32",)", ""), {"not valid JSON"});
  expect_rejected(raw_safetensors("{\"w\xff\": 1}", ""), {"not valid JSON"});  // not UTF-8
  expect_rejected(raw_safetensors("{} trailing", ""), {"not valid JSON"});
  // Found by safetensors_fuzz: a number beyond double's range threw an uncaught out_of_range.
  expect_rejected(raw_safetensors(R"({"__metadata__": {"a": 1939e524}})", ""),
                  {"number out of range", "406"});
  expect_rejected(
      raw_safetensors(one(R"("dtype":"F32","shape":[1e400],"data_offsets":[0,4])"), "abcd"),
      {"number out of range"});
  expect_rejected(raw_safetensors("[1, 2]", ""), {"the header is a JSON array, not an object"});
  expect_rejected(raw_safetensors(R"("str")", ""), {"not an object"});
  expect_rejected(raw_safetensors(R"({"w": 3})", "    "), {"tensor 'w'", "not an object"});
  expect_rejected(raw_safetensors(R"({"__metadata__": {"a": 1}})", ""),
                  {"__metadata__ 'a' is 1, not a string"});
  expect_rejected(raw_safetensors(R"({"__metadata__": [1]})", ""), {"__metadata__ is array"});
}

TEST_F(Corrupt, EntryFields) {
  const std::string d4(4, 'x');
  expect_rejected(raw_safetensors(one(R"("dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4])"), d4),
                  {"tensor 'w'", "unknown dtype \"F8_E4M3\""});
  expect_rejected(raw_safetensors(one(R"("dtype":"f32","shape":[1],"data_offsets":[0,4])"), d4),
                  {"tensor 'w'", "unknown dtype \"f32\""});
  expect_rejected(raw_safetensors(one(R"("dtype":7,"shape":[1],"data_offsets":[0,4])"), d4),
                  {"tensor 'w'", "dtype is 7"});
  expect_rejected(raw_safetensors(one(R"("shape":[1],"data_offsets":[0,4])"), d4),
                  {"tensor 'w'", "field 'dtype' is missing"});
  expect_rejected(
      raw_safetensors(one(R"("dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1)"), d4),
      {"tensor 'w'", "unknown field 'x'"});
  expect_rejected(raw_safetensors(one(R"("dtype":"F32","shape":[-1],"data_offsets":[0,4])"), d4),
                  {"tensor 'w'", "shape [-1] must hold non-negative integers"});
  expect_rejected(raw_safetensors(one(R"("dtype":"F32","shape":[1.5],"data_offsets":[0,4])"), d4),
                  {"tensor 'w'", "non-negative integers"});
  expect_rejected(raw_safetensors(one(R"("dtype":"F32","shape":4,"data_offsets":[0,4])"), d4),
                  {"tensor 'w'", "shape is 4, not an array"});
  expect_rejected(
      raw_safetensors(one(R"("dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4])"), d4),
      {"tensor 'w'", "has 9 dims"});
  expect_rejected(raw_safetensors(one(R"("dtype":"U8","shape":[4],"data_offsets":[0])"), d4),
                  {"tensor 'w'", "data_offsets [0] must be two non-negative integers"});
  expect_rejected(raw_safetensors(one(R"("dtype":"U8","shape":[0],"data_offsets":[4,0])"), d4),
                  {"tensor 'w'", "end before they begin"});
}

TEST_F(Corrupt, ShapeAndByteCountDisagree) {
  const std::string name = "decoder.layers.0.ffn.w1.weight";
  expect_rejected(
      raw_safetensors(R"({")" + name + R"(":{"dtype":"F32","shape":[5,6],"data_offsets":[0,100]}})",
                      std::string(100, 'x')),
      {"model.safetensors: tensor '" + name +
       "': data_offsets [0, 100] hold 100 bytes but shape [5, 6] of F32 needs 120"});
  // numel * size overflowing 64 bits must not wrap around to a small number.
  expect_rejected(
      raw_safetensors(one(R"("dtype":"F64","shape":[2305843009213693952,1],"data_offsets":[0,0])"),
                      ""),
      {"tensor 'w'", "needs more than 2^64"});
}

TEST_F(Corrupt, OffsetsPastEndOverlapsGapsAndDuplicates) {
  expect_rejected(
      raw_safetensors(one(R"("dtype":"U8","shape":[8],"data_offsets":[0,8])"), "1234"),
      {"tensor 'w'", "data_offsets [0, 8] run past the end of the data buffer (4 bytes)"});
  expect_rejected(raw_safetensors(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                                  R"("b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})",
                                  "123456"),
                  {"tensors 'a' [0, 4] and 'b' [2, 6] overlap"});
  expect_rejected(raw_safetensors(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                                  R"("b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})",
                                  "1234"),
                  {"overlap"});
  expect_rejected(raw_safetensors(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                                  R"("b":{"dtype":"U8","shape":[2],"data_offsets":[4,6]}})",
                                  "123456"),
                  {"tensor 'b' begins at byte 4", "gap after byte 2"});
  expect_rejected(raw_safetensors(one(R"("dtype":"U8","shape":[2],"data_offsets":[2,4])"), "1234"),
                  {"tensor 'w' begins at byte 2"});
  expect_rejected(raw_safetensors(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                                  R"("a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})",
                                  "1234"),
                  {"tensor 'a' appears twice in the header"});
}

TEST_F(Corrupt, MissingFileAndDirectory) {
  expect_error([&] { load_safetensors(dir_.file("none.safetensors")); },
               {dir_.file("none.safetensors"), "No such file or directory"});
  expect_error([&] { load_safetensors(dir_.path().string()); }, {"is a directory"});
}

}  // namespace
}  // namespace realmt::models::test
