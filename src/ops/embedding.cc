#include "ops/embedding.h"

#include <vector>

namespace realmt::ops {

namespace {

// "[b, t]": the multi-index of flat position p in shape s.
std::string position(int64_t p, const Shape& s) {
  std::vector<int64_t> idx(s.rank());
  for (int i = s.rank() - 1; i >= 0; --i) {
    idx[i] = p % s[i];
    p /= s[i];
  }
  std::string out = "[";
  for (size_t i = 0; i < idx.size(); ++i) out += (i ? ", " : "") + std::to_string(idx[i]);
  return out + "]";
}

// On the host, so every backend reports a bad id the same way and kernels index unchecked.
void check_ids(const Tensor& ids, int64_t vocab, const char* op) {
  check_defined(ids, op, "ids");
  check_dtype(ids, DType::kI32, op, "ids");
  const Tensor host = ids.to(Device::cpu());
  const int32_t* p = host.data<int32_t>();
  for (int64_t i = 0; i < host.numel(); ++i) {
    REALMT_CHECK(p[i] >= 0 && p[i] < vocab,
                 "{}: id {} at position {} of ids {} is outside the vocabulary [0, {})", op, p[i],
                 position(i, ids.shape()), ids.shape(), vocab);
  }
}

// ids' shape followed by D.
Shape rows_shape(const Shape& ids, int64_t d) {
  std::vector<int64_t> dims = ids.vec();
  dims.push_back(d);
  return Shape(dims);
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& ids) {
  const char* op = "embedding";
  check_defined(weight, op, "weight");
  REALMT_CHECK(weight.rank() == 2, "{}: weight must be [V, D], not {}", op, weight.shape());
  check_same_device(weight, ids, op);
  check_ids(ids, weight.dim(0), op);
  REALMT_CHECK(ids.rank() < kMaxDims, "{}: ids {} have too many axes", op, ids.shape());
  Tensor y = Tensor::empty(rows_shape(ids.shape(), weight.dim(1)), weight.dtype(), weight.device());
  if (y.numel() > 0) embedding_kernel.get(weight.device())(weight, ids, y);
  return y;
}

Tensor embedding_backward(const Tensor& dy, const Tensor& ids, int64_t vocab) {
  const char* op = "embedding_backward";
  check_defined(dy, op, "dy");
  check_same_device(dy, ids, op);
  REALMT_CHECK(vocab > 0, "{}: vocab must be positive, not {}", op, vocab);
  check_ids(ids, vocab, op);
  REALMT_CHECK(dy.rank() == ids.rank() + 1 && dy.shape() == rows_shape(ids.shape(), dy.dim(-1)),
               "{}: dy {} must be the ids' shape {} followed by D", op, dy.shape(), ids.shape());
  Tensor dweight = Tensor::zeros({vocab, dy.dim(-1)}, dy.dtype(), dy.device());
  if (dy.numel() > 0) embedding_backward_kernel.get(dy.device())(dy, ids, dweight);
  return dweight;
}

}  // namespace realmt::ops
