#include "ops/cast.h"

namespace realmt::ops {

Tensor cast(const Tensor& x, DType dtype) {
  check_defined(x, "cast", "x");
  if (x.dtype() == dtype) return x.clone();
  Tensor y = Tensor::empty(x.shape(), dtype, x.device());
  if (y.numel() > 0) cast_kernel.get(x.device())(x, y);
  return y;
}

}  // namespace realmt::ops
