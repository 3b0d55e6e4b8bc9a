// realmt's safetensors files against Python's safetensors (the Rust reference implementation
// with its numpy front end): each reads what the other writes, every dtype bit-exactly. A
// separate binary, so that ctest can give it the test virtual environment (tests/python_venv.sh,
// pinned safetensors and numpy) through REALMT_TEST_PYTHON; run by hand without that variable it
// uses python3 and skips when python3 lacks safetensors.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>

#include "models/safetensors.h"
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

// The venv's python under ctest; otherwise python3 when it has safetensors, else "" (skip).
std::string test_python() {
  if (const char* p = std::getenv("REALMT_TEST_PYTHON")) return p;
  return std::system("python3 -c 'import safetensors.numpy' >/dev/null 2>&1") == 0 ? "python3" : "";
}

// Python's safetensors reads our file and writes one we read.
TEST(Safetensors, InteroperatesWithPythonSafetensors) {
  const std::string python = test_python();
  if (python.empty())
    GTEST_SKIP() << "REALMT_TEST_PYTHON is not set and python3 lacks safetensors (ctest sets it)";
  ASSERT_EQ(std::system((python + " -c 'import safetensors.numpy' >/dev/null 2>&1").c_str()), 0)
      << python
      << " cannot import safetensors.numpy: the test venv (tests/python_venv.sh) is incomplete";
  TempDir dir;
  const std::string ours = dir.file("ours.safetensors"), theirs = dir.file("theirs.safetensors");
  save_safetensors(
      ours,
      {{"w", Tensor::from_vector<float>({1.5f, -2.f, 3.f, 4.f, 5.f, 6.f}, Shape{2, 3})},
       {"i", Tensor::from_vector<int32_t>({-7}, Shape{})}},
      {{"k", "v"}});
  const std::string script = dir.file("x.py");
  write_bytes(script,
              "import sys, numpy as np\n"
              "from safetensors.numpy import load_file, save_file\n"
              "from safetensors import safe_open\n"
              "d = load_file(sys.argv[1])\n"
              "assert d['w'].shape == (2, 3) and d['w'].dtype == np.float32, d\n"
              "assert d['w'].tolist() == [[1.5, -2, 3], [4, 5, 6]] and int(d['i']) == -7, d\n"
              "assert safe_open(sys.argv[1], 'np').metadata() == {'k': 'v'}\n"
              "save_file({'h': np.arange(5, dtype=np.float16), 'u': np.array([[9]], np.uint8)}, "
              "sys.argv[2],"
              " metadata={'m': 'n'})\n");
  ASSERT_EQ(std::system((python + " " + script + " " + ours + " " + theirs).c_str()), 0);

  // Every dtype, empty and 0-d tensors, misaligned offsets: the Rust core validates and
  // returns raw bytes, which we compare with ours.
  std::vector<std::pair<std::string, Tensor>> all;
  uint32_t seed = 100;
  for (DType t : kAll) {
    all.emplace_back(std::string(dtype_name(t)) + ".m", random_bits(Shape{2, 3}, t, seed++));
    all.emplace_back(std::string(dtype_name(t)) + ".s", random_bits(Shape{}, t, seed++));
    all.emplace_back(std::string(dtype_name(t)) + ".e", random_bits(Shape{0, 2}, t, seed++));
  }
  const std::string every = dir.file("every.safetensors"), listing = dir.file("every.txt");
  save_safetensors(every, all);
  write_bytes(
      script,
      "import sys\nfrom safetensors import deserialize\n"
      "with open(sys.argv[2], 'w') as out:\n"
      "  for name, t in deserialize(open(sys.argv[1], 'rb').read()):\n"
      "    out.write('%s %s %s %s\\n' % (name, t['dtype'], t['shape'], bytes(t['data']).hex()))\n");
  ASSERT_EQ(std::system((python + " " + script + " " + every + " " + listing).c_str()), 0);
  std::map<std::string, std::string> seen;
  std::istringstream lines(read_bytes(listing));
  for (std::string line; std::getline(lines, line);) seen[line.substr(0, line.find(' '))] = line;
  ASSERT_EQ(seen.size(), all.size());
  for (const auto& [name, t] : all) {
    std::string shape = "[", hex;
    for (int i = 0; i < t.rank(); ++i) shape += (i ? ", " : "") + std::to_string(t.dim(i));
    char b[3];
    for (size_t i = 0; i < t.nbytes(); ++i) {
      std::snprintf(b, sizeof b, "%02x", static_cast<const unsigned char*>(t.raw())[i]);
      hex += b;
    }
    EXPECT_EQ(seen[name],
              name + " " + safetensors_dtype_name(t.dtype()) + " " + shape + "] " + hex);
  }
  const SafetensorsFile f = load_safetensors(theirs);
  EXPECT_EQ(f.metadata.at("m"), "n");
  EXPECT_EQ(f.get("h").dtype(), DType::kF16);
  EXPECT_EQ(f.get("h").at(4), 4.0);
  EXPECT_EQ(f.get("u").shape(), (Shape{1, 1}));
  EXPECT_EQ(f.get("u").at(0), 9.0);
}

}  // namespace
}  // namespace realmt::models::test
