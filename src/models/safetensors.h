// safetensors files (the Hugging Face format, readable by its Python and Rust libraries):
//
//   u64 little-endian N | N bytes of UTF-8 JSON header, space-padded | data buffer
//
// The header maps each tensor name to {"dtype": "F32"|"F64"|"F16"|"BF16"|"I32"|"U8",
// "shape": [..], "data_offsets": [begin, end]} (offsets into the data buffer) and may hold
// "__metadata__": {"key": "value"} with string values. The tensors tile the data buffer:
// no gaps, no overlaps, nothing after the last one. Elements are little-endian, row-major.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace realmt {
class InputFile;
}

namespace realmt::models {

// "F32", "F64", "F16", "BF16", "I32", "U8".
const char* safetensors_dtype_name(DType dtype);
// The DType of a safetensors dtype string; nullopt for the ones realmt does not hold.
std::optional<DType> parse_safetensors_dtype(const std::string& name);

// The file realmt's safetensors go to (and are read from) for a model path: the path itself, but
// for a path ending in .npz or .bin, Marian's model file names (realmt-train --model model.npz
// keeps Marian's names), the same name ending in .safetensors: no file named .npz holds
// safetensors (realmt-convert --to marian writes real Marian .npz files).
std::string checkpoint_file(const std::string& path);
// For reading: checkpoint_file(path) when that file exists; else the path itself (a checkpoint
// an older realmt wrote under .npz is still read). A Marian .npz (a zip) is refused, naming
// realmt-convert --from marian.
std::string existing_checkpoint_file(const std::string& path);

// Writes the tensors in the given order (header entries and data alike), atomically
// (common/atomic_file.h). Tensors may live on any device; they are copied to the host one
// at a time. Names must be unique and not "__metadata__". The header gets "__metadata__"
// only when metadata is non-empty.
void save_safetensors(const std::string& path,
                      const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

// Where one tensor sits in a file.
struct SafetensorsEntry {
  DType dtype = DType::kF32;
  Shape shape;
  uint64_t begin = 0, end = 0;  // byte offsets into the data buffer
};

// How to treat entries whose dtype the safetensors format has but realmt does not hold (BOOL, I16,
// U16, U32, I64, U64, F8_E4M3, F8_E5M2): refused (the default: a realmt checkpoint never has
// them), or checked like the others (size, tiling) and listed in SafetensorsFile::skipped, for
// foreign files whose unused buffers (position ids, masks) may have them.
struct SafetensorsReadOptions {
  bool list_foreign_dtypes = false;
};

// A loaded, fully validated file. The whole data buffer is read into host memory once;
// tensors returned by get() are CPU views of it (they keep it alive), except that a tensor
// whose offset is not a multiple of its element size (possible in foreign files) is returned
// as an aligned copy. Writing into a view changes only the loaded copy, never the file.
struct SafetensorsFile {
  std::string path;
  std::map<std::string, std::string> metadata;  // "__metadata__"; empty when absent
  std::vector<std::string> names;               // in data order (= the order they were saved)
  // With SafetensorsReadOptions::list_foreign_dtypes: the entries of dtypes realmt does not hold,
  // name -> the header's dtype string ("I64"); not in `names`, not readable.
  std::map<std::string, std::string> skipped;

  bool contains(const std::string& name) const { return entries_.count(name) > 0; }
  // Throws naming the file and the tensor when absent.
  const SafetensorsEntry& entry(const std::string& name) const;
  Tensor get(const std::string& name) const;
  // Copies n bytes of tensor `name`, from byte `offset` of its data, into dst: from the loaded
  // buffer, or read from the file when the header alone was read (the file stays open for this
  // while the object lives: tensors are then read one at a time, never the whole buffer).
  void read(const std::string& name, uint64_t offset, void* dst, size_t n) const;
  // Tensor `name` as a new host tensor (a copy, for either kind of file).
  Tensor read(const std::string& name) const;
  bool loaded() const { return data_ != nullptr; }  // the data buffer is in memory
  size_t size() const { return names.size(); }
  uint64_t data_bytes() const { return data_ ? data_->bytes() : 0; }

 private:
  friend SafetensorsFile load_safetensors(const std::string& path,
                                          const SafetensorsReadOptions& options);
  friend SafetensorsFile load_safetensors_header(const std::string& path,
                                                 const SafetensorsReadOptions& options);
  std::unordered_map<std::string, SafetensorsEntry> entries_;
  std::shared_ptr<Storage> data_;        // the data buffer, host memory (load_safetensors)
  std::shared_ptr<const InputFile> in_;  // the open file (load_safetensors_header)
  uint64_t data_start_ = 0;              // file offset of the data buffer
};

// Reads and checks everything before any tensor is used: the header size (at least 8
// bytes of file, header < 100 MB and inside the file), the header (a JSON object, no
// duplicate names), every entry (known dtype, shape of at most 8 non-negative integers,
// data_offsets inside the buffer holding exactly numel * element size bytes), and that the
// entries tile the data buffer. Any violation is a realmt::Error naming the file and, where
// there is one, the tensor and the field.
SafetensorsFile load_safetensors(const std::string& path,
                                 const SafetensorsReadOptions& options = {});

// The same checks of the header alone (names, entries, metadata), without reading the data
// buffer: for metadata and config look-ups, and for reading tensors one at a time (read()).
// get() on the result throws.
SafetensorsFile load_safetensors_header(const std::string& path,
                                        const SafetensorsReadOptions& options = {});

}  // namespace realmt::models
