#include "core/tensor.h"

#include <algorithm>
#include <sstream>

#include "core/allocator.h"
#include "core/runtime.h"

namespace realmt {

Storage::Storage(size_t bytes, Device device) : bytes_(bytes), device_(device) {
  data_ = allocator_for(device).allocate(bytes);
}

Storage::Storage(void* data, size_t bytes, Device device, std::function<void(void*)> deleter)
    : data_(data), bytes_(bytes), device_(device), deleter_(std::move(deleter)) {
  REALMT_ASSERT(deleter_ != nullptr, "wrapped storage needs a deleter");
}

Storage::~Storage() {
  if (deleter_) {
    deleter_(data_);
  } else {
    allocator_for(device_).deallocate(data_, bytes_);
  }
}

Tensor::Tensor(std::shared_ptr<Storage> storage, size_t byte_offset, const Shape& shape,
               DType dtype)
    : storage_(std::move(storage)), offset_(byte_offset), shape_(shape), dtype_(dtype) {
  REALMT_ASSERT(storage_ != nullptr);
  REALMT_CHECK(offset_ + nbytes() <= storage_->bytes(),
               "tensor view {} {} at byte {} overruns its storage of {} bytes", dtype_,
               shape_.str(), offset_, storage_->bytes());
}

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  const size_t bytes = static_cast<size_t>(shape.numel()) * dtype_size(dtype);
  return Tensor(std::make_shared<Storage>(bytes, device), 0, shape, dtype);
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  t.zero_();
  return t;
}

Tensor Tensor::full(const Shape& shape, double value, DType dtype, Device device) {
  Tensor h = empty(shape, dtype, Device::cpu());
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::fill_n(h.data<T>(), h.numel(), scalar_cast<T>(value));
  });
  return h.to(device);
}

Device Tensor::device() const {
  REALMT_CHECK(defined(), "device() of an undefined tensor");
  return storage_->device();
}

void* Tensor::raw() const {
  REALMT_CHECK(defined(), "data of an undefined tensor");
  return static_cast<char*>(storage_->data()) + offset_;
}

Tensor Tensor::reshape(const std::vector<int64_t>& dims) const {
  std::vector<int64_t> d = dims;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] == -1) {
      REALMT_CHECK(infer < 0, "reshape of {} to more than one -1 extent", shape_.str());
      infer = static_cast<int>(i);
    } else {
      known *= d[i];
    }
  }
  if (infer >= 0) {
    REALMT_CHECK(known > 0 && numel() % known == 0,
                 "cannot reshape {} ({} elements) with a -1 extent", shape_.str(), numel());
    d[infer] = numel() / known;
  }
  return reshape(Shape(d));
}

Tensor Tensor::reshape(const Shape& shape) const {
  REALMT_CHECK(shape.numel() == numel(), "cannot reshape {} ({} elements) to {} ({} elements)",
               shape_.str(), numel(), shape.str(), shape.numel());
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::narrow0(int64_t begin, int64_t end) const {
  REALMT_CHECK(rank() >= 1, "narrow0 of a scalar");
  REALMT_CHECK(0 <= begin && begin <= end && end <= dim(0), "narrow0 [{}, {}) out of range for {}",
               begin, end, shape_.str());
  Tensor t = *this;
  const size_t row_bytes = static_cast<size_t>(shape_.inner(0)) * dtype_size(dtype_);
  t.offset_ += static_cast<size_t>(begin) * row_bytes;
  t.shape_[0] = end - begin;
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape_, dtype_, device());
  t.copy_from(*this);
  return t;
}

Tensor Tensor::to(Device d) const {
  if (device() == d) return *this;
  Tensor t = empty(shape_, dtype_, d);
  t.copy_from(*this);
  return t;
}

void Tensor::copy_from(const Tensor& src) const {
  REALMT_CHECK(src.shape() == shape_ && src.dtype() == dtype_, "copy_from: {} into {}", src.str(),
               str());
  const Device sd = src.device(), dd = device();
  DeviceRuntime& rt = runtime_for(sd.is_cpu() ? dd.type : sd.type);
  rt.copy(raw(), dd, src.raw(), sd, nbytes());
}

void Tensor::zero_() const { runtime_for(device().type).memset_zero(raw(), device(), nbytes()); }

double Tensor::item() const {
  REALMT_CHECK(numel() == 1, "item() of a tensor with {} elements ({})", numel(), shape_.str());
  return at(0);
}

double Tensor::at(int64_t i) const {
  REALMT_CHECK(i >= 0 && i < numel(), "element {} of a tensor with {} elements", i, numel());
  Tensor h = device().is_cpu() ? *this : to(Device::cpu());
  return visit_dtype(dtype_, [&](auto tag) -> double {
    using T = decltype(tag);
    return scalar_cast<double>(h.data<T>()[i]);
  });
}

std::string Tensor::str() const {
  if (!defined()) return "Tensor(undefined)";
  std::ostringstream os;
  os << "Tensor(" << dtype_ << ", " << shape_ << ", " << device() << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

void check_defined(const Tensor& t, const char* op, const char* arg) {
  REALMT_CHECK(t.defined(), "{}: argument '{}' is an undefined tensor", op, arg);
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  REALMT_CHECK(a.device() == b.device(), "{}: operands on different devices ({} and {})", op,
               a.device(), b.device());
}

void check_dtype(const Tensor& t, DType dtype, const char* op, const char* arg) {
  REALMT_CHECK(t.dtype() == dtype, "{}: argument '{}' must be {}, is {}", op, arg, dtype,
               t.dtype());
}

}  // namespace realmt
