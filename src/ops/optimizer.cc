#include "ops/optimizer.h"

namespace realmt::ops {

namespace {
void check_like(const Tensor& a, const Tensor& b, const char* op, const char* name) {
  check_defined(b, op, name);
  REALMT_CHECK(a.shape() == b.shape() && a.dtype() == b.dtype() && a.device() == b.device(),
               "{}: '{}' is {}, the parameters are {}", op, name, b, a);
}
}  // namespace

void adam_update(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v,
                 const AdamStep& s) {
  check_defined(p, "adam_update", "param");
  check_like(p, g, "adam_update", "grad");
  check_like(p, m, "adam_update", "m");
  check_like(p, v, "adam_update", "v");
  REALMT_CHECK(s.bias_correction2 > 0, "adam_update: bias_correction2 must be positive, got {}",
               s.bias_correction2);
  if (p.numel() > 0) adam_update_kernel.get(p.device())(p, g, m, v, s);
}

void ema_update(const Tensor& ema, const Tensor& p, double alpha) {
  check_defined(p, "ema_update", "param");
  check_like(p, ema, "ema_update", "ema");
  if (p.numel() > 0) ema_update_kernel.get(p.device())(ema, p, alpha);
}

double sum_squares(const Tensor& x) {
  check_defined(x, "sum_squares", "x");
  return x.numel() > 0 ? sum_squares_kernel.get(x.device())(x) : 0.0;
}

}  // namespace realmt::ops
