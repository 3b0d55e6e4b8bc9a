#include "ops/layer_norm.h"

namespace realmt::ops {

namespace {

// x [..., D] with D > 0; gamma (and beta) [D]; all on one device with one float dtype.
int64_t check_x_gamma(const Tensor& x, const Tensor& gamma, const char* op) {
  check_defined(x, op, "x");
  check_defined(gamma, op, "gamma");
  check_same_device(x, gamma, op);
  REALMT_CHECK(x.rank() >= 1 && x.dim(-1) > 0, "{}: x {} needs a non-empty last (D) axis", op,
               x.shape());
  REALMT_CHECK(is_floating(x.dtype()), "{}: x is {}, not a floating type", op, x.dtype());
  const int64_t d = x.dim(-1);
  REALMT_CHECK(gamma.shape() == Shape{d} && gamma.dtype() == x.dtype(),
               "{}: gamma {} must be {} [{}] like x {}", op, gamma, x.dtype(), d, x);
  return d;
}

void check_like(const Tensor& t, const Shape& shape, const Tensor& x, const char* op,
                const char* name) {
  check_defined(t, op, name);
  check_same_device(t, x, op);
  REALMT_CHECK(t.shape() == shape && t.dtype() == x.dtype(), "{}: {} must be {} {}, not {}", op,
               name, x.dtype(), shape, t);
}

}  // namespace

LayerNormResult layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
  const char* op = "layer_norm";
  const int64_t d = check_x_gamma(x, gamma, op);
  check_like(beta, Shape{d}, x, op, "beta");
  REALMT_CHECK(eps > 0, "{}: eps must be positive, not {}", op, eps);
  const Shape rows{x.numel() / d};
  LayerNormResult out{Tensor::empty(x.shape(), x.dtype(), x.device()),
                      Tensor::empty(rows, x.dtype(), x.device()),
                      Tensor::empty(rows, x.dtype(), x.device())};
  if (x.numel() > 0) layer_norm_kernel.get(x.device())(x, gamma, beta, eps, out);
  return out;
}

LayerNormGrads layer_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& gamma,
                                   const Tensor& mean, const Tensor& rstd) {
  const char* op = "layer_norm_backward";
  const int64_t d = check_x_gamma(x, gamma, op);
  check_like(dy, x.shape(), x, op, "dy");
  const Shape rows{x.numel() / d};
  check_like(mean, rows, x, op, "mean");
  check_like(rstd, rows, x, op, "rstd");
  LayerNormGrads g{Tensor::empty(x.shape(), x.dtype(), x.device()),
                   Tensor::zeros(Shape{d}, x.dtype(), x.device()),
                   Tensor::zeros(Shape{d}, x.dtype(), x.device())};
  if (x.numel() > 0) layer_norm_backward_kernel.get(x.device())(dy, x, gamma, mean, rstd, g);
  return g;
}

}  // namespace realmt::ops
