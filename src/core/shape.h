// Shape: up to kMaxDims extents, row-major. Negative axes count from the end.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace realmt {

inline constexpr int kMaxDims = 8;

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  explicit Shape(const std::vector<int64_t>& dims);

  int rank() const { return rank_; }
  int64_t operator[](int axis) const { return dims_[normalize_axis(axis)]; }
  int64_t& operator[](int axis) { return dims_[normalize_axis(axis)]; }
  int64_t numel() const;
  // Product of the extents before / after `axis` (exclusive).
  int64_t outer(int axis) const;
  int64_t inner(int axis) const;
  // Maps a possibly negative axis into [0, rank); throws naming the shape when out of range.
  int normalize_axis(int axis) const;
  std::vector<int64_t> vec() const { return {dims_.begin(), dims_.begin() + rank_}; }
  std::string str() const;  // "[2, 3, 4]"

  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  std::array<int64_t, kMaxDims> dims_{};
  int rank_ = 0;
};

std::ostream& operator<<(std::ostream& os, const Shape& s);

// Numpy broadcasting of two shapes; throws naming both when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace realmt
