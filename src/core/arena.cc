#include "core/arena.h"

namespace realmt {

Arena::Arena(const std::vector<Shape>& shapes, DType dtype, Device device) {
  const size_t esize = dtype_size(dtype);
  std::vector<size_t> offsets;
  size_t bytes = 0;
  for (const Shape& s : shapes) {
    offsets.push_back(bytes);
    bytes += static_cast<size_t>(s.numel()) * esize;
    bytes = (bytes + kAlign - 1) / kAlign * kAlign;
  }
  if (bytes == 0) bytes = kAlign;
  flat_ = Tensor::zeros(Shape{static_cast<int64_t>(bytes / esize)}, dtype, device);
  for (size_t i = 0; i < shapes.size(); ++i)
    slots_.emplace_back(flat_.storage(), offsets[i], shapes[i], dtype);
}

}  // namespace realmt
