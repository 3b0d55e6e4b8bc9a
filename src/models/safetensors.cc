#include "models/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>

#include "common/atomic_file.h"

namespace realmt::models {

// The format is little-endian on disk; realmt copies element bytes verbatim.
static_assert(std::endian::native == std::endian::little,
              "safetensors I/O assumes a little-endian host");

namespace {

using Json = nlohmann::ordered_json;  // keeps the header's order when parsing and writing

// The Rust reference implementation's limit; real headers are a few MB at most.
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;
constexpr const char* kMetadataKey = "__metadata__";

uint64_t read_le64(const unsigned char* b) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

std::string shape_text(const Json& shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i].dump();
  os << ']';
  return os.str();
}

// Element sizes of the format's dtypes that realmt does not hold (SafetensorsReadOptions).
size_t foreign_dtype_size(const std::string& name) {
  static const std::map<std::string, size_t> sizes{{"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1},
                                                   {"I16", 2},  {"U16", 2},     {"U32", 4},
                                                   {"I64", 8},  {"U64", 8}};
  const auto it = sizes.find(name);
  return it == sizes.end() ? 0 : it->second;
}

// Checks one header entry and returns it; every message names the file and the tensor. With
// `foreign` non-null, an entry of a dtype realmt does not hold is checked with its element size
// and its dtype string is put in *foreign (the returned entry's dtype is then meaningless).
SafetensorsEntry parse_entry(const std::string& path, const std::string& name, const Json& e,
                             uint64_t data_bytes, std::string* foreign) {
  const std::string where = format("{}: tensor '{}'", path, name);
  REALMT_CHECK(e.is_object(), "{}: entry is {}, not an object with dtype, shape and data_offsets",
               where, e.type_name());
  for (const auto& [key, value] : e.items()) {
    REALMT_CHECK(key == "dtype" || key == "shape" || key == "data_offsets",
                 "{}: unknown field '{}'", where, key);
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    REALMT_CHECK(e.contains(key), "{}: field '{}' is missing", where, key);
  }
  SafetensorsEntry out;
  const Json& dtype = e["dtype"];
  REALMT_CHECK(dtype.is_string(), "{}: dtype is {}, not a string", where, dtype.dump());
  const auto parsed = parse_safetensors_dtype(dtype.get<std::string>());
  const size_t foreign_size = foreign && !parsed ? foreign_dtype_size(dtype.get<std::string>()) : 0;
  REALMT_CHECK(parsed.has_value() || foreign_size > 0,
               "{}: unknown dtype {} (realmt reads F32, F64, F16, BF16, I32, U8, I8)", where,
               dtype.dump());
  if (parsed)
    out.dtype = *parsed;
  else
    *foreign = dtype.get<std::string>();
  const uint64_t element_size = parsed ? dtype_size(*parsed) : foreign_size;

  const Json& shape = e["shape"];
  REALMT_CHECK(shape.is_array(), "{}: shape is {}, not an array", where, shape.dump());
  REALMT_CHECK(shape.size() <= static_cast<size_t>(kMaxDims),
               "{}: shape {} has {} dims; at most {} are supported", where, shape_text(shape),
               shape.size(), kMaxDims);
  std::vector<int64_t> dims;
  uint64_t numel = 1;
  bool overflow = false;
  for (const Json& d : shape) {
    REALMT_CHECK(d.is_number_unsigned(), "{}: shape {} must hold non-negative integers", where,
                 shape_text(shape));
    const uint64_t v = d.get<uint64_t>();
    REALMT_CHECK(v <= static_cast<uint64_t>(INT64_MAX), "{}: shape {} has an extent too large",
                 where, shape_text(shape));
    dims.push_back(static_cast<int64_t>(v));
    overflow = overflow || __builtin_mul_overflow(numel, v, &numel);
  }
  out.shape = Shape(dims);

  const Json& off = e["data_offsets"];
  REALMT_CHECK(off.is_array() && off.size() == 2 && off[0].is_number_unsigned() &&
                   off[1].is_number_unsigned(),
               "{}: data_offsets {} must be two non-negative integers [begin, end]", where,
               off.dump());
  out.begin = off[0].get<uint64_t>();
  out.end = off[1].get<uint64_t>();
  REALMT_CHECK(out.begin <= out.end, "{}: data_offsets [{}, {}] end before they begin", where,
               out.begin, out.end);
  REALMT_CHECK(out.end <= data_bytes,
               "{}: data_offsets [{}, {}] run past the end of the data buffer ({} bytes)", where,
               out.begin, out.end, data_bytes);
  uint64_t needed = 0;
  overflow = overflow || __builtin_mul_overflow(numel, element_size, &needed);
  REALMT_CHECK(!overflow && needed == out.end - out.begin,
               "{}: data_offsets [{}, {}] hold {} bytes but shape {} of {} needs {}", where,
               out.begin, out.end, out.end - out.begin, shape_text(shape), dtype.get<std::string>(),
               overflow ? std::string("more than 2^64") : std::to_string(needed));
  return out;
}

}  // namespace

const char* safetensors_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "F32";
    case DType::kF64: return "F64";
    case DType::kF16: return "F16";
    case DType::kBF16: return "BF16";
    case DType::kI32: return "I32";
    case DType::kU8: return "U8";
    case DType::kI8: return "I8";
  }
  throw_unsupported_dtype("safetensors", dtype);
}

std::optional<DType> parse_safetensors_dtype(const std::string& name) {
  for (DType t :
       {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI32, DType::kU8, DType::kI8}) {
    if (name == safetensors_dtype_name(t)) return t;
  }
  return std::nullopt;
}

std::string checkpoint_file(const std::string& path) {
  for (std::string_view marian : {".npz", ".bin"})  // Marian's two model formats
    if (path.size() > marian.size() &&
        path.compare(path.size() - marian.size(), marian.size(), marian) == 0)
      return path.substr(0, path.size() - marian.size()) + ".safetensors";
  return path;
}

std::string existing_checkpoint_file(const std::string& path) {
  const std::string file = checkpoint_file(path);
  if (file == path || std::filesystem::exists(file)) return file;
  char magic[4] = {};
  if (std::ifstream in(path, std::ios::binary);
      in.read(magic, 4) && std::string_view(magic, 4) == "PK\x03\x04")
    REALMT_FAIL(
        "{} is a Marian model (an .npz archive), not a realmt checkpoint, and {} does not exist: "
        "convert it "
        "with realmt-convert --from marian {} --vocabs VOCAB.yml -o {}",
        path, file, path, file);
  return path;
}

void save_safetensors(const std::string& given,
                      const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  const std::string path = checkpoint_file(given);
  Json header = Json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    REALMT_CHECK(name != kMetadataKey, "{}: '{}' cannot be a tensor name", path, name);
    REALMT_CHECK(!header.contains(name), "{}: tensor '{}' given twice", path, name);
    REALMT_CHECK(t.defined(), "{}: tensor '{}' is undefined", path, name);
    const uint64_t bytes = t.nbytes();
    header[name] = Json{{"dtype", safetensors_dtype_name(t.dtype())},
                        {"shape", t.shape().vec()},
                        {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    REALMT_FAIL("{}: a tensor name or metadata string is not valid UTF-8 ({})", path, e.what());
  }
  // Spaces pad the header so that the data buffer starts 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');
  unsigned char size_le[8];
  for (int i = 0; i < 8; ++i)
    size_le[i] = static_cast<unsigned char>(uint64_t(text.size()) >> (8 * i));

  AtomicFile file(path);
  file.write(size_le, 8);
  file.write(text);
  for (const auto& [name, t] : tensors) {
    const Tensor host = t.to(Device::cpu());
    file.write(host.raw(), host.nbytes());
  }
  file.commit();
}

const SafetensorsEntry& SafetensorsFile::entry(const std::string& name) const {
  auto it = entries_.find(name);
  REALMT_CHECK(it != entries_.end(), "{}: no tensor named '{}' ({} tensors in the file)", path,
               name, names.size());
  return it->second;
}

Tensor SafetensorsFile::get(const std::string& name) const {
  const SafetensorsEntry& e = entry(name);
  REALMT_CHECK(data_ != nullptr, "{}: tensor '{}' asked of a file whose header alone was read",
               path, name);
  if (e.begin % dtype_size(e.dtype) == 0) return Tensor(data_, e.begin, e.shape, e.dtype);
  // A foreign writer may pack a U8 tensor before an F32 one: copy rather than hand out
  // a misaligned element pointer.
  Tensor t = Tensor::empty(e.shape, e.dtype);
  std::memcpy(t.raw(), static_cast<const char*>(data_->data()) + e.begin, e.end - e.begin);
  return t;
}

void SafetensorsFile::read(const std::string& name, uint64_t offset, void* dst, size_t n) const {
  const SafetensorsEntry& e = entry(name);
  REALMT_CHECK(offset <= e.end - e.begin && n <= e.end - e.begin - offset,
               "{}: bytes [{}, {}) asked of tensor '{}', which has {}", path, offset, offset + n,
               name, e.end - e.begin);
  if (n == 0) return;
  if (data_) {
    std::memcpy(dst, static_cast<const char*>(data_->data()) + e.begin + offset, n);
  } else {
    REALMT_ASSERT(in_ != nullptr);
    in_->read_at(data_start_ + e.begin + offset, dst, n);
  }
}

Tensor SafetensorsFile::read(const std::string& name) const {
  const SafetensorsEntry& e = entry(name);
  Tensor t = Tensor::empty(e.shape, e.dtype);
  read(name, 0, t.raw(), e.end - e.begin);
  return t;
}

namespace {

// Reads and checks the size field and the header of `in` (everything but the data buffer) into
// `file`; returns the header size n (the data buffer starts at byte 8 + n).
uint64_t read_header(const InputFile& in, SafetensorsFile& file,
                     std::unordered_map<std::string, SafetensorsEntry>& entries,
                     const SafetensorsReadOptions& options) {
  const std::string& path = in.path();
  const uint64_t size = in.size();
  REALMT_CHECK(size >= 8,
               "{}: not a safetensors file: {} bytes, too short for the 8-byte header size", path,
               size);
  unsigned char size_le[8];
  in.read_at(0, size_le, 8);
  const uint64_t n = read_le64(size_le);
  REALMT_CHECK(n <= kMaxHeaderBytes,
               "{}: not a safetensors file: header size field says {} bytes (limit 100 MB)", path,
               n);
  REALMT_CHECK(n <= size - 8, "{}: truncated: header says {} bytes, file has {}", path, n, size);
  std::string text(n, '\0');
  in.read_at(8, text.data(), n);
  const uint64_t data_bytes = size - 8 - n;

  // Duplicate names would silently collapse into one JSON member: catch them while parsing.
  std::set<std::string> seen;
  std::string duplicate;
  auto on_event = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key &&
        !seen.insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  Json header;
  try {
    header = Json::parse(text, on_event);
  } catch (const nlohmann::json::parse_error& e) {
    REALMT_FAIL("{}: not a safetensors file: the header is not valid JSON: {}", path, e.what());
  } catch (const nlohmann::json::exception& e) {
    // out_of_range.406 (found by safetensors_fuzz): a number beyond double's range, such as
    // 1939e524.
    REALMT_FAIL("{}: not a safetensors file: the header holds a number out of range: {}", path,
                e.what());
  }
  REALMT_CHECK(header.is_object(),
               "{}: not a safetensors file: the header is a JSON {}, not an object", path,
               header.type_name());
  REALMT_CHECK(duplicate.empty(), "{}: tensor '{}' appears twice in the header", path, duplicate);

  file.path = path;
  std::vector<std::pair<std::string, const SafetensorsEntry*>> order;
  std::unordered_map<std::string, SafetensorsEntry> foreign_entries;  // they tile the buffer too
  for (const auto& [name, value] : header.items()) {
    if (name == kMetadataKey) {
      REALMT_CHECK(value.is_object(), "{}: __metadata__ is {}, not an object of strings", path,
                   value.type_name());
      for (const auto& [key, v] : value.items()) {
        REALMT_CHECK(v.is_string(), "{}: __metadata__ '{}' is {}, not a string", path, key,
                     v.dump());
        file.metadata[key] = v.get<std::string>();
      }
      continue;
    }
    std::string foreign;
    const SafetensorsEntry e = parse_entry(path, name, value, data_bytes,
                                           options.list_foreign_dtypes ? &foreign : nullptr);
    auto [it, inserted] = (foreign.empty() ? entries : foreign_entries).emplace(name, e);
    REALMT_ASSERT(inserted);
    order.emplace_back(name, &it->second);
    if (!foreign.empty()) file.skipped.emplace(name, foreign);
  }

  // The entries must tile [0, data_bytes): sorted by offset, each begins where the last ended.
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::pair(a.second->begin, a.second->end) < std::pair(b.second->begin, b.second->end);
  });
  uint64_t covered = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& [name, e] = order[i];
    if (e->begin < covered) {
      const auto& [prev, p] = order[i - 1];
      REALMT_FAIL("{}: tensors '{}' [{}, {}] and '{}' [{}, {}] overlap in the data buffer", path,
                  prev, p->begin, p->end, name, e->begin, e->end);
    }
    REALMT_CHECK(e->begin == covered,
                 "{}: tensor '{}' begins at byte {} of the data buffer, leaving a gap after "
                 "byte {}",
                 path, name, e->begin, covered);
    covered = e->end;
    if (!file.skipped.count(name)) file.names.push_back(name);
  }
  REALMT_CHECK(covered == data_bytes,
               "{}: the data buffer has {} bytes but the tensors cover {} (trailing bytes, "
               "or a file that is not safetensors)",
               path, data_bytes, covered);
  return n;
}

}  // namespace

SafetensorsFile load_safetensors_header(const std::string& path,
                                        const SafetensorsReadOptions& options) {
  auto in = std::make_shared<const InputFile>(existing_checkpoint_file(path));
  SafetensorsFile file;
  file.data_start_ = 8 + read_header(*in, file, file.entries_, options);
  file.in_ = std::move(in);
  return file;
}

SafetensorsFile load_safetensors(const std::string& path, const SafetensorsReadOptions& options) {
  InputFile in(existing_checkpoint_file(path));
  SafetensorsFile file;
  const uint64_t n = read_header(in, file, file.entries_, options);
  const uint64_t data_bytes = in.size() - 8 - n;

  // One read of the whole buffer; 64-byte alignment suits every element type and SIMD loads.
  const size_t alloc = (std::max<uint64_t>(data_bytes, 1) + 63) / 64 * 64;
  void* buffer = std::aligned_alloc(64, alloc);
  REALMT_CHECK(buffer != nullptr, "{}: cannot allocate {} bytes for the tensor data", path,
               data_bytes);
  file.data_ =
      std::make_shared<Storage>(buffer, data_bytes, Device::cpu(), [](void* p) { std::free(p); });
  in.read_at(8 + n, buffer, data_bytes);
  return file;
}

}  // namespace realmt::models
