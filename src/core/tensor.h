// Tensor: reference-counted storage + byte offset + shape + dtype + device. Row-major and
// always contiguous; views (reshape, leading-axis slices, arena slots) share the storage.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"

namespace realmt {

// A block of device memory. Owned blocks return to their allocator; wrapped ones run a deleter.
class Storage {
 public:
  Storage(size_t bytes, Device device);  // from the device's caching allocator
  Storage(void* data, size_t bytes, Device device, std::function<void(void*)> deleter);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Device device() const { return device_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  Device device_;
  std::function<void(void*)> deleter_;  // empty: owned by the device allocator
};

class Tensor {
 public:
  Tensor() = default;  // undefined

  // Uninitialised memory.
  static Tensor empty(const Shape& shape, DType dtype = DType::kF32, Device device = Device::cpu());
  static Tensor zeros(const Shape& shape, DType dtype = DType::kF32, Device device = Device::cpu());
  // Every element equal to value (converted to dtype).
  static Tensor full(const Shape& shape, double value, DType dtype = DType::kF32,
                     Device device = Device::cpu());
  // A CPU tensor holding a copy of values, which must have shape.numel() elements.
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, const Shape& shape);
  // Wraps existing storage (used by arenas and checkpoint loading).
  Tensor(std::shared_ptr<Storage> storage, size_t byte_offset, const Shape& shape, DType dtype);

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  Device device() const;
  int rank() const { return shape_.rank(); }
  int64_t dim(int axis) const { return shape_[axis]; }
  int64_t numel() const { return shape_.numel(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  size_t byte_offset() const { return offset_; }

  void* raw() const;
  // Typed pointer; throws when T does not match the dtype.
  template <typename T>
  T* data() const {
    REALMT_CHECK(dtype_ == dtype_of<T>, "tensor holds {}, not {}", dtype_, dtype_of<T>);
    return static_cast<T*>(raw());
  }

  // A view with another shape of the same number of elements (-1 infers one extent).
  Tensor reshape(const std::vector<int64_t>& dims) const;
  Tensor reshape(std::initializer_list<int64_t> dims) const {
    return reshape(std::vector<int64_t>(dims));
  }
  Tensor reshape(const Shape& shape) const;
  // Rows [begin, end) of the leading axis, as a view.
  Tensor narrow0(int64_t begin, int64_t end) const;
  // A fresh copy on the same device.
  Tensor clone() const;
  // A copy on another device (this tensor itself when already there).
  Tensor to(Device device) const;
  // Overwrites this tensor's elements with src's (same shape and dtype; any devices).
  void copy_from(const Tensor& src) const;  // writes the data, not the handle
  void zero_() const;

  template <typename T>
  std::vector<T> to_vector() const;  // copies to the host
  // The single element of a one-element tensor, converted to double.
  double item() const;
  // Element i (flat index) converted to double; for tests and debugging (host copies).
  double at(int64_t i) const;

  bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }
  std::string str() const;  // "Tensor(f32, [2, 3], cpu)"

 private:
  std::shared_ptr<Storage> storage_;
  size_t offset_ = 0;
  Shape shape_;
  DType dtype_ = DType::kF32;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// Argument checks shared by ops.
void check_same_device(const Tensor& a, const Tensor& b, const char* op);
void check_dtype(const Tensor& t, DType dtype, const char* op, const char* arg);
void check_defined(const Tensor& t, const char* op, const char* arg);

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, const Shape& shape) {
  REALMT_CHECK(static_cast<int64_t>(values.size()) == shape.numel(),
               "from_vector: {} values for shape {}", values.size(), shape.str());
  Tensor t = empty(shape, dtype_of<T>, Device::cpu());
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  Tensor h = to(Device::cpu());
  const T* p = h.data<T>();
  return std::vector<T>(p, p + numel());
}

}  // namespace realmt
