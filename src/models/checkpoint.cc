#include "models/checkpoint.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>
#include <unordered_set>

#include "common/edit_distance.h"
#include "core/dtype.h"
#include "models/safetensors.h"

namespace realmt::models {

namespace {

constexpr size_t kMaxListed = 10;  // names listed per kind of mismatch; the rest are counted

// A destination and the name it has in the file: a slot, or (sink set) a receiver of the value as
// a host tensor of `shape` and `dtype` (a released parameter: LoadOptions::released).
struct Target {
  std::string name;
  Tensor slot;
  Shape shape;
  DType dtype = DType::kF32;
  std::function<void(const Tensor&)> sink;
};

Target slot_target(std::string name, const Tensor& slot) {
  return {std::move(name), slot, slot.shape(), slot.dtype(), {}};
}

void list_names(std::ostringstream& os, const char* what, const std::vector<std::string>& names,
                const std::vector<std::string>& others, const char* other_kind) {
  for (size_t i = 0; i < names.size() && i < kMaxListed; ++i) {
    os << "\n  " << what << " '" << names[i] << "'";
    if (!others.empty())
      os << " (closest " << other_kind << ": '" << closest_name(names[i], others) << "')";
  }
  if (names.size() > kMaxListed)
    os << "\n  ... and " << names.size() - kMaxListed << " more " << what;
}

// Views of every slot on the host, from one device-to-host copy of the arena.
std::vector<Tensor> host_slots(const Arena& arena) {
  const Tensor host = arena.flat().to(Device::cpu());
  std::vector<Tensor> out;
  for (int i = 0; i < arena.size(); ++i) {
    const Tensor& s = arena[i];
    REALMT_ASSERT(s.shares_storage_with(arena.flat()));
    out.emplace_back(host.storage(),
                     host.byte_offset() + (s.byte_offset() - arena.flat().byte_offset()), s.shape(),
                     s.dtype());
  }
  return out;
}

uint32_t crc32_update(uint32_t crc, const void* data, size_t bytes) {
  // zlib takes at most 4 GB a call; a tensor may be larger.
  uLong c = crc;
  const auto* p = static_cast<const Bytef*>(data);
  while (bytes > 0) {
    const size_t n = std::min<size_t>(bytes, size_t(1) << 30);
    c = crc32_z(c, p, n);
    p += n;
    bytes -= n;
  }
  return static_cast<uint32_t>(c);
}

uint32_t crc32_of(const Tensor& host) {
  return crc32_update(static_cast<uint32_t>(crc32_z(0L, Z_NULL, 0)), host.raw(), host.nbytes());
}

std::string hex8(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// Bit patterns with an all-ones exponent are NaN or Inf, in every floating format.
template <typename Bits>
void count_non_finite(const void* data, int64_t n, int64_t first_index, Bits exponent_mask,
                      int64_t& count, int64_t& first) {
  const Bits* p = static_cast<const Bits*>(data);
  int64_t c = 0;
  for (int64_t i = 0; i < n; ++i) c += (p[i] & exponent_mask) == exponent_mask;
  if (c > 0 && count == 0) {
    for (int64_t i = 0; i < n; ++i) {
      if ((p[i] & exponent_mask) == exponent_mask) {
        first = first_index + i;
        break;
      }
    }
  }
  count += c;
}

// Adds to `count` the NaN and Inf among n elements of `dtype` at `data` (none for integer dtypes),
// the elements numbered from first_index; `first` gets the first one found.
void non_finite(DType dtype, const void* data, int64_t n, int64_t first_index, int64_t& count,
                int64_t& first) {
  switch (dtype) {
    case DType::kF32:
      return count_non_finite<uint32_t>(data, n, first_index, 0x7f800000u, count, first);
    case DType::kF64:
      return count_non_finite<uint64_t>(data, n, first_index, 0x7ff0000000000000ull, count, first);
    case DType::kF16: return count_non_finite<uint16_t>(data, n, first_index, 0x7c00, count, first);
    case DType::kBF16:
      return count_non_finite<uint16_t>(data, n, first_index, 0x7f80, count, first);
    default: return;
  }
}

// Calls fn(bytes, n, offset) over tensor `name`'s bytes in order: once for a file in memory, in
// chunks (a multiple of every element size) read into one scratch buffer otherwise, so that a
// check of a whole checkpoint holds at most one chunk.
void scan_tensor(const SafetensorsFile& file, const std::string& name,
                 const std::function<void(const void*, size_t, uint64_t)>& fn) {
  const SafetensorsEntry& e = file.entry(name);
  const uint64_t bytes = e.end - e.begin;
  if (file.loaded()) {
    const Tensor t = file.get(name);
    fn(t.raw(), bytes, 0);
    return;
  }
  constexpr uint64_t kChunk = uint64_t(4) << 20;
  std::vector<unsigned char> buffer(std::min(bytes, kChunk));
  for (uint64_t at = 0; at < bytes; at += kChunk) {
    const size_t n = static_cast<size_t>(std::min(kChunk, bytes - at));
    file.read(name, at, buffer.data(), n);
    fn(buffer.data(), n, at);
  }
}

// bf16/f16 -> f32 on the host; exact, since f32 holds every value of both.
Tensor widen_to_f32(const Tensor& src) {
  Tensor out = Tensor::empty(src.shape(), DType::kF32);
  float* dst = out.data<float>();
  visit_dtype(src.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = src.data<T>();
    for (int64_t i = 0; i < src.numel(); ++i) dst[i] = scalar_cast<float>(p[i]);
  });
  return out;
}

Metadata load_targets(const std::string& path, const std::vector<Target>& targets,
                      const LoadOptions& options) {
  // The header now, the tensors one at a time below: never the whole data buffer in memory.
  const SafetensorsFile file = load_safetensors_header(path);
  verify_checkpoint(file);

  // Names first: every missing and unexpected name, each with its likeliest counterpart.
  std::vector<std::string> missing, unexpected;
  std::unordered_set<std::string> wanted;
  for (const Target& t : targets) {
    wanted.insert(t.name);
    if (!file.contains(t.name)) missing.push_back(t.name);
  }
  if (!options.ignore_unexpected) {
    for (const std::string& n : file.names) {
      if (!wanted.count(n)) unexpected.push_back(n);
    }
  }
  if (!missing.empty() || !unexpected.empty()) {
    std::ostringstream os;
    os << path << ": the checkpoint does not match the parameters: " << missing.size()
       << " missing from the file, " << unexpected.size() << " unexpected in it";
    list_names(os, "missing", missing, unexpected.empty() ? file.names : unexpected, "in the file");
    std::vector<std::string> wanted_names;
    for (const Target& t : targets) wanted_names.push_back(t.name);
    list_names(os, "unexpected", unexpected, missing.empty() ? wanted_names : missing, "parameter");
    REALMT_FAIL("{}", os.str());
  }

  // Then shapes and dtypes, all of them, before anything is copied.
  std::vector<std::string> problems;
  for (const Target& t : targets) {
    const SafetensorsEntry& e = file.entry(t.name);
    const bool widen = options.widen_half_to_f32 && t.dtype == DType::kF32 &&
                       (e.dtype == DType::kBF16 || e.dtype == DType::kF16);
    if (e.shape != t.shape) {
      problems.push_back(
          format("tensor '{}': shape {} expected, {} found", t.name, t.shape.str(), e.shape.str()));
    } else if (e.dtype != t.dtype && !widen) {
      problems.push_back(format("tensor '{}': dtype {} expected, {} found", t.name,
                                safetensors_dtype_name(t.dtype), safetensors_dtype_name(e.dtype)));
    }
  }
  if (!problems.empty()) {
    std::ostringstream os;
    os << path << ": " << problems.size() << " tensor(s) do not match the parameters";
    for (size_t i = 0; i < problems.size() && i < kMaxListed; ++i) os << "\n  " << problems[i];
    if (problems.size() > kMaxListed)
      os << "\n  ... and " << problems.size() - kMaxListed << " more";
    REALMT_FAIL("{}", os.str());
  }

  // A host slot of the file's dtype takes the bytes straight from the file; anything else goes
  // through one host tensor at a time (widened, copied to the device, or handed to the sink).
  for (const Target& t : targets) {
    const SafetensorsEntry& e = file.entry(t.name);
    if (!t.sink && t.slot.device().is_cpu() && e.dtype == t.dtype) {
      file.read(t.name, 0, t.slot.raw(), e.end - e.begin);
      continue;
    }
    Tensor src = file.read(t.name);
    if (src.dtype() != t.dtype) src = widen_to_f32(src);
    if (t.sink)
      t.sink(src);
    else
      t.slot.copy_from(src);
  }
  return file.metadata;
}

std::vector<Target> arena_targets(const std::vector<NamedArena>& arenas,
                                  const std::vector<std::string>& names) {
  std::vector<Target> targets;
  for (const NamedArena& a : arenas) {
    REALMT_CHECK(a.arena.size() == static_cast<int>(names.size()),
                 "arena '{}' has {} slots for {} names", a.prefix, a.arena.size(), names.size());
    for (int i = 0; i < a.arena.size(); ++i)
      targets.push_back(slot_target(a.prefix + "." + names[i], a.arena[i]));
  }
  return targets;
}

}  // namespace

void save_parameters(const std::string& path, const graph::ParameterSet& params,
                     const Metadata& metadata) {
  REALMT_CHECK(params.allocated(), "{}: cannot save parameters that are not allocated", path);
  REALMT_CHECK(!params.any_released(),
               "{}: a quantized decoding model cannot be saved (load the f32 checkpoint)", path);
  const std::vector<Tensor> slots = host_slots(params.values());
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (int i = 0; i < params.size(); ++i) tensors.emplace_back(params.names()[i], slots[i]);
  save_checkpoint(path, tensors, metadata);
}

Metadata load_parameters(const std::string& path, graph::ParameterSet& params,
                         const LoadOptions& options) {
  REALMT_CHECK(params.allocated(), "{}: allocate the parameters before loading into them", path);
  std::vector<Target> targets;
  for (int i = 0; i < params.size(); ++i) {
    const std::string& name = params.names()[i];
    if (!params.released(i)) {
      targets.push_back(slot_target(name, params.values()[i]));
      continue;
    }
    REALMT_CHECK(options.released != nullptr,
                 "{}: parameter '{}' was released and nothing receives its value", path, name);
    targets.push_back({name, Tensor(), params.shapes()[i], params.values().dtype(),
                       [&options, i](const Tensor& value) { options.released(i, value); }});
  }
  return load_targets(path, targets, options);
}

void save_arenas(const std::string& path, const std::vector<NamedArena>& arenas,
                 const std::vector<std::string>& names, const Metadata& metadata) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const NamedArena& a : arenas) {
    REALMT_CHECK(a.arena.size() == static_cast<int>(names.size()),
                 "{}: arena '{}' has {} slots for {} names", path, a.prefix, a.arena.size(),
                 names.size());
    const std::vector<Tensor> slots = host_slots(a.arena);
    for (size_t i = 0; i < names.size(); ++i)
      tensors.emplace_back(a.prefix + "." + names[i], slots[i]);
  }
  save_checkpoint(path, tensors, metadata);
}

Metadata load_arenas(const std::string& path, const std::vector<NamedArena>& arenas,
                     const std::vector<std::string>& names, const LoadOptions& options) {
  return load_targets(path, arena_targets(arenas, names), options);
}

void check_checkpoint_format(const std::string& path, const Metadata& metadata) {
  const auto fmt = metadata.find(kFormatKey);
  REALMT_CHECK(fmt == metadata.end() || fmt->second == kFormatVersion,
               "{}: checkpoint format '{}'; this realmt reads format {} (a newer realmt wrote it?)",
               path, fmt == metadata.end() ? "" : fmt->second, kFormatVersion);
}

void verify_checkpoint(const SafetensorsFile& file) {
  check_checkpoint_format(file.path, file.metadata);
  const auto sums = file.metadata.find(kChecksumKey);
  std::vector<std::string> expected;  // empty: no checksums (older or foreign files)
  if (sums != file.metadata.end()) {
    std::istringstream in(sums->second);
    for (std::string word; in >> word;) expected.push_back(word);
    REALMT_CHECK(
        expected.size() == file.names.size(),
        "{}: metadata '{}' lists {} checksums for {} tensors: the header was edited or damaged",
        file.path, kChecksumKey, expected.size(), file.names.size());
  }
  for (size_t i = 0; i < file.names.size(); ++i) {
    // One pass over each tensor's bytes: its checksum and its NaN and Inf together.
    const std::string& name = file.names[i];
    const SafetensorsEntry& e = file.entry(name);
    const size_t element = dtype_size(e.dtype);
    uint32_t crc = static_cast<uint32_t>(crc32_z(0L, Z_NULL, 0));
    int64_t bad = 0, first = 0;
    double value = 0;
    scan_tensor(file, name, [&](const void* bytes, size_t n, uint64_t offset) {
      crc = crc32_update(crc, bytes, n);
      const int64_t before = bad;
      non_finite(e.dtype, bytes, static_cast<int64_t>(n / element),
                 static_cast<int64_t>(offset / element), bad, first);
      if (before == 0 && bad > 0) {
        visit_dtype(e.dtype, [&](auto tag) {
          using T = decltype(tag);
          T v;
          std::memcpy(&v, static_cast<const char*>(bytes) + (first * element - offset), sizeof v);
          value = scalar_cast<double>(v);
        });
      }
    });
    if (!expected.empty()) {
      const std::string got = hex8(crc);
      REALMT_CHECK(got == expected[i],
                   "{}: tensor '{}' is damaged: its bytes have CRC-32 {}, the checkpoint recorded "
                   "{} (a bad disk, "
                   "an incomplete copy or an edit); copy the file again or use another checkpoint",
                   file.path, name, got, expected[i]);
    }
    REALMT_CHECK(bad == 0,
                 "{}: tensor '{}' holds {} non-finite value(s) ({} at element {} of {}); a model "
                 "with NaN or Inf "
                 "weights cannot be used: its training diverged or the file was damaged; use an "
                 "earlier checkpoint",
                 file.path, name, bad, value, first, e.shape.numel());
  }
}

void save_checkpoint(const std::string& path,
                     const std::vector<std::pair<std::string, Tensor>>& tensors,
                     Metadata metadata) {
  std::string sums;
  for (const auto& [name, t] : tensors) {
    REALMT_CHECK(t.device().is_cpu(),
                 "{}: tensor '{}' must be on the host to be saved as a checkpoint", path, name);
    if (!sums.empty()) sums += ' ';  // (not "" + std::string: GCC 12's -Wrestrict false positive)
    sums += hex8(crc32_of(t));
  }
  metadata.insert_or_assign(kFormatKey, std::string(kFormatVersion));
  metadata.insert_or_assign(kChecksumKey, sums);
  save_safetensors(path, tensors, metadata);
}

}  // namespace realmt::models
