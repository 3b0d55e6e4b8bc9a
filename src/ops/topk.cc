#include "ops/topk.h"

namespace realmt::ops {

namespace {

void check_x(const Tensor& x, const char* op) {
  check_defined(x, op, "x");
  REALMT_CHECK(is_floating(x.dtype()), "{}: x must be floating, is {}", op, x.dtype());
  REALMT_CHECK(x.rank() >= 1, "{}: x must have at least one axis, got {}", op, x.shape());
  REALMT_CHECK(x.dim(-1) <= INT32_MAX, "{}: last axis of {} is too long for i32 indices", op,
               x.shape());
}

}  // namespace

Tensor argmax(const Tensor& x) {
  check_x(x, "argmax");
  REALMT_CHECK(x.dim(-1) >= 1, "argmax: the last axis of x {} is empty", x.shape());
  std::vector<int64_t> lead = x.shape().vec();
  lead.pop_back();
  const TopkPlan p{x.shape().outer(-1), x.dim(-1), 1};
  Tensor values;  // not wanted
  Tensor indices = Tensor::empty(Shape{p.rows, 1}, DType::kI32, x.device());
  if (p.rows > 0) topk_kernel.get(x.device())(x, p, values, indices);
  return indices.reshape(Shape(lead));
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k) {
  check_x(x, "topk");
  REALMT_CHECK(k >= 0 && k <= x.dim(-1),
               "topk: k = {} must be in [0, {}] (the last extent of x {})", k, x.dim(-1),
               x.shape());
  Shape out = x.shape();
  out[-1] = k;
  Tensor values = Tensor::empty(out, x.dtype(), x.device());
  Tensor indices = Tensor::empty(out, DType::kI32, x.device());
  const TopkPlan p{x.shape().outer(-1), x.dim(-1), k};
  if (values.numel() > 0) topk_kernel.get(x.device())(x, p, values, indices);
  return {values, indices};
}

}  // namespace realmt::ops
