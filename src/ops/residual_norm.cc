#include "ops/residual_norm.h"

namespace realmt::ops {

namespace {

void check_vec(const Tensor& v, const Tensor& x, const char* name) {
  if (!v.defined()) return;
  check_same_device(v, x, "residual_norm");
  REALMT_CHECK(v.shape() == Shape{x.dim(-1)} && v.dtype() == x.dtype(),
               "residual_norm: {} must be {} [{}], got {}", name, x.dtype(), x.dim(-1), v);
}

void check_like(const Tensor& t, const Tensor& x, const char* name) {
  check_defined(t, "residual_norm", name);
  check_same_device(t, x, "residual_norm");
  REALMT_CHECK(t.shape() == x.shape() && t.dtype() == x.dtype(),
               "residual_norm: {} {} does not match x {}", name, t, x);
}

}  // namespace

ResidualNormResult residual_norm(const Tensor& x, const Tensor& y, const Tensor& omega,
                                 const Tensor& bias, const Tensor& gamma, const Tensor& beta,
                                 const ResidualNormOptions& o) {
  check_defined(x, "residual_norm", "x");
  REALMT_CHECK(x.rank() >= 1 && x.dim(-1) > 0 && is_floating(x.dtype()),
               "residual_norm: x {} needs a non-empty last (D) axis and a floating dtype", x);
  check_like(y, x, "y");
  check_vec(omega, x, "omega");
  check_vec(bias, x, "bias");
  check_defined(gamma, "residual_norm", "gamma");
  check_defined(beta, "residual_norm", "beta");
  check_vec(gamma, x, "gamma");
  check_vec(beta, x, "beta");
  REALMT_CHECK(o.eps > 0, "residual_norm: eps must be positive, not {}", o.eps);
  REALMT_CHECK(o.dropout >= 0 && o.dropout < 1, "residual_norm: dropout must be in [0, 1), got {}",
               o.dropout);
  const Shape rows{x.numel() / x.dim(-1)};
  ResidualNormResult r{Tensor::empty(x.shape(), x.dtype(), x.device()),
                       Tensor::empty(x.shape(), x.dtype(), x.device()),
                       Tensor::empty(rows, x.dtype(), x.device()),
                       Tensor::empty(rows, x.dtype(), x.device())};
  if (x.numel() > 0) residual_norm_kernel.get(x.device())(x, y, omega, bias, gamma, beta, o, r);
  return r;
}

ResidualNormGrads residual_norm_backward(const Tensor& dn, const Tensor& dz_extra, const Tensor& x,
                                         const ResidualNormResult& fwd, const Tensor& omega,
                                         const Tensor& bias, const Tensor& gamma,
                                         const ResidualNormOptions& o) {
  check_like(dn, x, "dn");
  if (dz_extra.defined()) check_like(dz_extra, x, "dz");
  check_like(fwd.z, x, "z");
  check_vec(omega, x, "omega");
  check_vec(gamma, x, "gamma");
  const Device dev = x.device();
  const DType dt = x.dtype();
  const Shape d{x.dim(-1)};
  ResidualNormGrads g;
  g.dx = Tensor::empty(x.shape(), dt, dev);
  g.dy = Tensor::empty(x.shape(), dt, dev);
  g.dgamma = Tensor::empty(d, dt, dev);
  g.dbeta = Tensor::empty(d, dt, dev);
  if (omega.defined()) g.domega = Tensor::empty(d, dt, dev);
  if (bias.defined()) g.dbias = Tensor::empty(d, dt, dev);
  if (x.numel() > 0) {
    residual_norm_backward_kernel.get(dev)(dn, dz_extra, x, fwd, omega, gamma, o, g);
  } else {
    for (Tensor* t : {&g.dgamma, &g.dbeta, &g.domega, &g.dbias})
      if (t->defined()) t->zero_();
  }
  return g;
}

}  // namespace realmt::ops
