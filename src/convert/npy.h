// numpy arrays in .npy form (as the members of an .npz: Marian's model files): the header dict
// ('descr', 'fortran_order', 'shape') and the data. Floating arrays (f2, f4, f8) become f32
// tensors; Marian keeps its config as an int8 array of YAML text ("special:model.yml").
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace realmt::convert {

struct NpyArray {
  std::string descr;  // e.g. "<f4", "|i1"
  std::vector<int64_t> shape;
  std::string data;  // raw bytes, C order
  int64_t numel() const;
};

// Parses an .npy file's bytes; `name` names it in errors. Fortran order is refused.
NpyArray parse_npy(const std::string& bytes, const std::string& name);
// A floating array as an f32 tensor of its shape (f2 and f8 converted).
Tensor npy_to_f32(const NpyArray& a, const std::string& name);
// An 8-bit array's bytes as text (Marian's "special:model.yml"), up to the first NUL.
std::string npy_to_text(const NpyArray& a, const std::string& name);
// The .npy bytes (format 1.0, C order) of an f32 tensor ('<f4', its shape), and of text as an
// int8 array ('<i1', one NUL after the text: how Marian stores its config).
std::string npy_f32(const Tensor& t);
std::string npy_text(const std::string& text);

}  // namespace realmt::convert
