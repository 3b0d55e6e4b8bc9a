#include "core/shape.h"

#include <sstream>

#include "core/error.h"

namespace realmt {

Shape::Shape(std::initializer_list<int64_t> dims) : Shape(std::vector<int64_t>(dims)) {}

Shape::Shape(const std::vector<int64_t>& dims) {
  REALMT_CHECK(dims.size() <= kMaxDims, "shape has {} dims; at most {} are supported", dims.size(),
               kMaxDims);
  rank_ = static_cast<int>(dims.size());
  for (int i = 0; i < rank_; ++i) {
    REALMT_CHECK(dims[i] >= 0, "negative extent {} at axis {} of a shape", dims[i], i);
    dims_[i] = dims[i];
  }
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int i = 0; i < rank_; ++i) n *= dims_[i];
  return n;
}

int64_t Shape::outer(int axis) const {
  const int a = normalize_axis(axis);
  int64_t n = 1;
  for (int i = 0; i < a; ++i) n *= dims_[i];
  return n;
}

int64_t Shape::inner(int axis) const {
  const int a = normalize_axis(axis);
  int64_t n = 1;
  for (int i = a + 1; i < rank_; ++i) n *= dims_[i];
  return n;
}

int Shape::normalize_axis(int axis) const {
  const int a = axis < 0 ? axis + rank_ : axis;
  REALMT_CHECK(a >= 0 && a < rank_, "axis {} is out of range for shape {}", axis, str());
  return a;
}

std::string Shape::str() const {
  std::ostringstream os;
  os << '[';
  for (int i = 0; i < rank_; ++i) os << (i ? ", " : "") << dims_[i];
  os << ']';
  return os.str();
}

bool Shape::operator==(const Shape& o) const {
  if (rank_ != o.rank_) return false;
  for (int i = 0; i < rank_; ++i)
    if (dims_[i] != o.dims_[i]) return false;
  return true;
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.str(); }

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(r);
  for (int i = 0; i < r; ++i) {
    const int ia = a.rank() - r + i, ib = b.rank() - r + i;
    const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    REALMT_CHECK(da == db || da == 1 || db == 1,
                 "shapes {} and {} do not broadcast (axis {}: {} vs {})", a.str(), b.str(), i - r,
                 da, db);
    out[i] = da == 1 ? db : da;
  }
  return Shape(out);
}

}  // namespace realmt
