// The readers realmt-convert is built on, on archives made here byte by byte: zip (stored and
// deflated members, CRC-32 checks, ZIP64 sizes), .npy headers, torch.save's pickle of a state
// dict (a transposed tensor rebuilt from its strides).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "convert/npy.h"
#include "convert/torch_reader.h"
#include "convert/zip_reader.h"
#include "core/error.h"
#include "../common/temp_dir.h"

namespace realmt::convert {
namespace {

using realmt::testing::TempDir;

void put(std::string& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string raw_deflate(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

struct Member {
  std::string name, data;
  bool deflate = false;
  bool zip64 = false;  // sizes and offset in a ZIP64 extra field
  bool bad_crc = false;
};

// A zip archive as numpy and PyTorch write them: local headers, data, central directory, end.
std::string make_zip(const std::vector<Member>& members) {
  std::string out, cd;
  for (const Member& m : members) {
    const std::string body = m.deflate ? raw_deflate(m.data) : m.data;
    uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(m.data.data()), m.data.size()));
    if (m.bad_crc) crc ^= 1;
    const uint64_t offset = out.size();
    put(out, 0x04034b50, 4);
    put(out, 20, 2);
    put(out, 0, 2);
    put(out, m.deflate ? 8 : 0, 2);
    put(out, 0, 4);
    put(out, crc, 4);
    put(out, body.size(), 4);
    put(out, m.data.size(), 4);
    put(out, m.name.size(), 2);
    put(out, 0, 2);
    out += m.name + body;
    put(cd, 0x02014b50, 4);
    put(cd, 45, 2);
    put(cd, 20, 2);
    put(cd, 0, 2);
    put(cd, m.deflate ? 8 : 0, 2);
    put(cd, 0, 4);
    put(cd, crc, 4);
    put(cd, m.zip64 ? 0xffffffff : body.size(), 4);
    put(cd, m.zip64 ? 0xffffffff : m.data.size(), 4);
    put(cd, m.name.size(), 2);
    put(cd, m.zip64 ? 28 : 0, 2);
    put(cd, 0, 2);
    put(cd, 0, 2);
    put(cd, 0, 2);
    put(cd, 0, 4);
    put(cd, m.zip64 ? 0xffffffff : offset, 4);
    cd += m.name;
    if (m.zip64) {
      put(cd, 1, 2);
      put(cd, 24, 2);
      put(cd, m.data.size(), 8);
      put(cd, body.size(), 8);
      put(cd, offset, 8);
    }
  }
  const uint64_t cd_offset = out.size();
  out += cd;
  put(out, 0x06054b50, 4);
  put(out, 0, 4);
  put(out, members.size(), 2);
  put(out, members.size(), 2);
  put(out, cd.size(), 4);
  put(out, cd_offset, 4);
  put(out, 0, 2);
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ZipReader, ReadsStoredDeflatedAndZip64Members) {
  TempDir dir;
  const std::string text(5000, 'x');
  const std::string path = dir.write("a.zip", make_zip({{"stored.bin", "hello"},
                                                        {"deflated.txt", text + "y", true},
                                                        {"big.bin", "zip64 sizes", false, true}}));
  const ZipReader zip(path);
  ASSERT_EQ(zip.members().size(), 3u);
  EXPECT_EQ(zip.read(*zip.find("stored.bin")), "hello");
  EXPECT_EQ(zip.read(*zip.find("deflated.txt")), text + "y");
  EXPECT_LT(zip.find("deflated.txt")->compressed_size, 100u);
  EXPECT_EQ(zip.read(*zip.find("big.bin")), "zip64 sizes");
  EXPECT_EQ(zip.find("missing"), nullptr);
}

TEST(ZipReader, DamageIsNamed) {
  TempDir dir;
  const std::string bad = dir.write("bad.zip", make_zip({{"w.npy", "data", false, false, true}}));
  const ZipReader zip(bad);
  const std::string e = error_of([&] { zip.read(zip.members()[0]); });
  EXPECT_NE(e.find("CRC-32"), std::string::npos) << e;
  EXPECT_NE(e.find("w.npy"), std::string::npos) << e;
  const std::string junk = dir.write("junk.zip", std::string(100, 'j'));
  EXPECT_NE(error_of([&] { ZipReader z(junk); }).find("not a zip archive"), std::string::npos);
}

std::string npy(const std::string& descr, const std::string& shape, const std::string& data,
                bool fortran = false) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (" +
                       shape + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  put(out, header.size(), 2);
  return out + header + data;
}

TEST(Npy, FloatArraysAndText) {
  const float v[6] = {1, 2, 3, 4, 5, 6};
  const NpyArray a =
      parse_npy(npy("<f4", "2, 3", std::string(reinterpret_cast<const char*>(v), 24)), "w");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  const Tensor t = npy_to_f32(a, "w");
  EXPECT_EQ(t.shape(), Shape({2, 3}));
  EXPECT_FLOAT_EQ(t.data<float>()[4], 5.0f);
  const double d[2] = {0.5, -1.25};
  EXPECT_FLOAT_EQ(
      npy_to_f32(
          parse_npy(npy("<f8", "2,", std::string(reinterpret_cast<const char*>(d), 16)), "d"), "d")
          .data<float>()[1],
      -1.25f);
  const std::string yml = "dim-emb: 8\n";
  EXPECT_EQ(npy_to_text(
                parse_npy(npy("|i1", std::to_string(yml.size() + 1) + ",", yml + '\0'), "y"), "y"),
            yml);
  EXPECT_NE(error_of([&] {
              parse_npy(npy("<f4", "2,", std::string(8, '\0'), true), "f");
            }).find("Fortran"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { parse_npy(npy("<f4", "3,", std::string(8, '\0')), "short"); }).find("short"),
      std::string::npos);
}

// String literals with NULs in them, whole.
template <size_t N>
std::string b(const char (&s)[N]) {
  return std::string(s, N - 1);
}

// torch.save of {"w": t.t(), "n": an integer buffer} with t = [[0, 1, 2], [3, 4, 5]]: the pickle
// protocol 2 bytes PyTorch writes (OrderedDict, _rebuild_tensor_v2, persistent storage ids).
std::string state_dict_pickle() {
  auto str = [](const std::string& s) {
    std::string o = "X";
    put(o, s.size(), 4);
    return o + s;
  };
  std::string p = b("\x80\x02") + b("ccollections\nOrderedDict\nq\x00)Rq\x01(") + str("w");
  p += b("ctorch._utils\n_rebuild_tensor_v2\nq\x02((") + str("storage") +
       b("ctorch\nFloatStorage\nq\x03") + str("0") + str("cpu") +
       b("K\x06tq\x04QK\x00K\x03K\x02\x86q\x05K\x01K\x03\x86q\x06\x89") +
       b("ccollections\nOrderedDict\nq\x07)Rq\x08tq\tRq\n");
  p += str("n");
  p += b("h\x02((") + str("storage") + b("ctorch\nLongStorage\nq\x0b") + str("1") + str("cpu") +
       b("K\x01tq\x0cQK\x00))\x89h\x07)Rq\rtq\x0eRq\x0f");
  p += b("u}q\x10X\t\x00\x00\x00_metadataq\x11h\x07)Rsb.");
  return p;
}

TEST(TorchReader, RebuildsTensorsFromAStateDict) {
  TempDir dir;
  const float storage[6] = {0, 1, 2, 3, 4, 5};
  const std::string path = dir.write(
      "pytorch_model.bin",
      make_zip({{"archive/data.pkl", state_dict_pickle()},
                {"archive/data/0", std::string(reinterpret_cast<const char*>(storage), 24)},
                {"archive/data/1", std::string(8, '\0')},
                {"archive/version", "3\n"}}));
  std::map<std::string, std::string> skipped;
  const auto sd = read_torch_state_dict(path, &skipped);
  ASSERT_EQ(sd.size(), 1u);  // the integer buffer is left out, and listed
  EXPECT_EQ(skipped, (std::map<std::string, std::string>{{"n", "LongStorage"}}));
  const Tensor& w = sd.at("w");
  ASSERT_EQ(w.shape(), Shape({3, 2}));  // sizes (3, 2), strides (1, 3): the transpose
  const std::vector<float> want{0, 3, 1, 4, 2, 5};
  EXPECT_EQ(w.to_vector<float>(), want);
}

TEST(TorchReader, LegacyFormatAndDamageAreNamed) {
  TempDir dir;
  const std::string legacy = dir.write("old.bin", b("\x80\x02\x8a\x0a"
                                                    "legacy"));
  EXPECT_NE(error_of([&] { read_torch_state_dict(legacy); }).find("before PyTorch 1.6"),
            std::string::npos);
  std::string cut = state_dict_pickle();
  cut.resize(cut.size() / 2);
  const std::string truncated = dir.write("cut.bin", make_zip({{"archive/data.pkl", cut}}));
  const std::string e = error_of([&] { read_torch_state_dict(truncated); });
  EXPECT_NE(e.find("cut.bin"), std::string::npos) << e;
}

// Inputs the fuzz targets (fuzz/zip_fuzz, npy_fuzz, torch_pickle_fuzz) are about: each must be a
// realmt::Error naming the problem, never another exception, a huge allocation or a bad read.
TEST(TorchReader, HostilePicklesAreErrors) {
  TempDir dir;
  const std::map<std::string, std::string> cases = {
      {"memo index", b("\x80\x02]r\xff\xff\xff\xff.")},  // LONG_BINPUT 2^32 - 1: no 32 GB memo
      {"LONG1 of 9 bytes", b("\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09.")},
      {"without its tensor", b("ctorch._utils\n_rebuild_parameter\n)R.")},  // no args
      {"holds no dict", b("]q\x00h\x00"
                          "a.")},  // a list that holds itself
      {"pickle stack underflow", b("(a.")},
  };
  for (const auto& [want, pickle] : cases) {
    const std::string path = dir.write("p.bin", make_zip({{"archive/data.pkl", pickle}}));
    const std::string e = error_of([&] { read_torch_state_dict(path); });
    EXPECT_NE(e.find(want), std::string::npos) << want << ": " << e;
  }
  // A view past its storage (6 floats; sizes (4, 2) strides (1, 3) reach element 9), and an
  // expanded view (stride 0) of 2^40 elements: both refused before anything is allocated.
  for (const std::string& view :
       {b("K\x04K\x02\x86K\x01K\x03\x86"), b("\x8a\x06\x00\x00\x00\x00\x00\x01\x85K\x00\x85")}) {
    std::string p = state_dict_pickle();
    const std::string orig = b("K\x03K\x02\x86q\x05K\x01K\x03\x86");
    p.replace(p.find(orig), orig.size(), view + b("q\x05"));
    const float storage[6] = {0, 1, 2, 3, 4, 5};
    const std::string path = dir.write(
        "v.bin",
        make_zip({{"archive/data.pkl", p},
                  {"archive/data/0", std::string(reinterpret_cast<const char*>(storage), 24)},
                  {"archive/data/1", std::string(8, '\0')}}));
    const std::string e = error_of([&] { read_torch_state_dict(path); });
    EXPECT_NE(e.find("reads past its storage"), std::string::npos) << e;
  }
}

// Found by torch_pickle_fuzz (fuzz/corpus/torch_pickle_fuzz/finding-duplicate-key): a key given
// twice, a float tensor then an integer one, was both returned and listed as skipped. As in
// Python's dict, the later value wins.
TEST(TorchReader, ADuplicateKeyKeepsTheLaterValue) {
  TempDir dir;
  std::string p = state_dict_pickle();
  const std::string n = b("X\x01\x00\x00\x00n");
  p.replace(p.find(n), n.size(), b("X\x01\x00\x00\x00w"));  // {"w": float tensor, "w": long tensor}
  const float storage[6] = {0, 1, 2, 3, 4, 5};
  const std::string path = dir.write(
      "dup.bin",
      make_zip({{"archive/data.pkl", p},
                {"archive/data/0", std::string(reinterpret_cast<const char*>(storage), 24)},
                {"archive/data/1", std::string(8, '\0')}}));
  std::map<std::string, std::string> skipped;
  EXPECT_TRUE(read_torch_state_dict(path, &skipped).empty());
  EXPECT_EQ(skipped, (std::map<std::string, std::string>{{"w", "LongStorage"}}));
}

TEST(Npy, HostileHeadersAreErrors) {
  for (const auto& c :
       std::vector<std::pair<std::string, std::string>>{{"<fx", "2,"},
                                                        {"<f4", "4611686018427387904, 4"},
                                                        {"<f4", "1, 1, 1, 1, 1, 1, 1, 1, 1"},
                                                        {"<f4", "99999999999999999999999"}}) {
    std::string e =
        error_of([&] { parse_npy(npy(c.first, c.second, std::string(8, '\0')), "hostile"); });
    EXPECT_NE(e.find("hostile"), std::string::npos) << c.first << " " << c.second << ": " << e;
  }
}

TEST(ZipReader, HostileSizesAreErrors) {
  TempDir dir;
  // A deflated member claiming 4 GB from a few bytes.
  std::string zip = make_zip({{"big", "abc", true}});
  const size_t cd = zip.find(std::string("PK\x01\x02", 4));
  for (int i = 0; i < 4; ++i) zip[cd + 24 + i] = '\xff';
  const ZipReader z(dir.write("big.zip", zip));
  const std::string e = error_of([&] { z.read(z.members()[0]); });
  EXPECT_NE(e.find("claims 4294967295 bytes"), std::string::npos) << e;
}

}  // namespace
}  // namespace realmt::convert
