// Arena: one contiguous device allocation carved into tensors (parameters, gradients,
// optimizer moments). Contiguity lets an optimizer step, a gradient norm or an all-reduce
// run over a single buffer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace realmt {

class Arena {
 public:
  // Slots are aligned to 64 bytes.
  static constexpr size_t kAlign = 64;

  // Lays out one slot per shape (all of one dtype) and allocates the block, zero-filled.
  Arena(const std::vector<Shape>& shapes, DType dtype, Device device);

  int size() const { return static_cast<int>(slots_.size()); }
  const Tensor& operator[](int i) const { return slots_.at(i); }
  // The whole block as a 1-D tensor of `elements()` elements (padding included, kept zero).
  const Tensor& flat() const { return flat_; }
  int64_t elements() const { return flat_.numel(); }
  DType dtype() const { return flat_.dtype(); }
  Device device() const { return flat_.device(); }

 private:
  Tensor flat_;
  std::vector<Tensor> slots_;
};

}  // namespace realmt
