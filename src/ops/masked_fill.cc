#include "ops/masked_fill.h"

#include <cmath>

namespace realmt::ops {

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  check_defined(x, "masked_fill", "x");
  check_defined(mask, "masked_fill", "mask");
  check_same_device(x, mask, "masked_fill");
  check_dtype(mask, DType::kU8, "masked_fill", "mask");
  REALMT_CHECK(mask.rank() <= x.rank() && broadcast_shapes(x.shape(), mask.shape()) == x.shape(),
               "masked_fill: mask {} does not broadcast to x {}", mask.shape(), x.shape());
  if (!is_floating(x.dtype())) {
    const double lo = x.dtype() == DType::kU8   ? 0.0
                      : x.dtype() == DType::kI8 ? -128.0
                                                : -2147483648.0;
    const double hi = x.dtype() == DType::kU8   ? 255.0
                      : x.dtype() == DType::kI8 ? 127.0
                                                : 2147483647.0;
    REALMT_CHECK(std::isfinite(value) && value == std::trunc(value) && lo <= value && value <= hi,
                 "masked_fill: value {} is not representable in {}", value, x.dtype());
  }
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  if (y.numel() > 0)
    masked_fill_kernel.get(x.device())(x, mask, value,
                                       plan_broadcast(x.shape(), mask.shape(), x.shape()), y);
  return y;
}

}  // namespace realmt::ops
