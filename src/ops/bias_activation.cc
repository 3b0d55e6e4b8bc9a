#include "ops/bias_activation.h"

namespace realmt::ops {

namespace {
void check(const Tensor& y, const Tensor& bias, const BiasActivationOptions& o, const char* op) {
  check_defined(y, op, "y");
  REALMT_CHECK(y.rank() >= 1 && is_floating(y.dtype()),
               "{}: y {} needs a floating dtype and an F axis", op, y);
  if (bias.defined()) {
    check_same_device(y, bias, op);
    REALMT_CHECK(bias.shape() == Shape{y.dim(-1)} && bias.dtype() == y.dtype(),
                 "{}: bias {} must be {} [{}]", op, bias, y.dtype(), y.dim(-1));
  }
  REALMT_CHECK(o.dropout >= 0 && o.dropout < 1, "{}: dropout must be in [0, 1), got {}", op,
               o.dropout);
}
}  // namespace

Tensor bias_activation(const Tensor& y, const Tensor& bias, const BiasActivationOptions& o) {
  check(y, bias, o, "bias_activation");
  Tensor h = Tensor::empty(y.shape(), y.dtype(), y.device());
  if (y.numel() > 0) bias_activation_kernel.get(y.device())(y, bias, o, h);
  return h;
}

BiasActivationGrads bias_activation_backward(const Tensor& dh, const Tensor& h, const Tensor& y,
                                             const Tensor& bias, const BiasActivationOptions& o) {
  check(y, bias, o, "bias_activation_backward");
  check_same_device(dh, y, "bias_activation_backward");
  REALMT_CHECK(dh.shape() == y.shape() && dh.dtype() == y.dtype(),
               "bias_activation_backward: dh {} does not match y {}", dh, y);
  REALMT_CHECK(o.activation != Activation::kRelu ||
                   (h.defined() && h.shape() == y.shape() && h.dtype() == y.dtype()),
               "bias_activation_backward: relu needs the forward output h like y {}, got {}", y, h);
  BiasActivationGrads g;
  g.dy = Tensor::empty(y.shape(), y.dtype(), y.device());
  if (bias.defined()) g.dbias = Tensor::empty(bias.shape(), bias.dtype(), bias.device());
  if (y.numel() > 0) {
    bias_activation_backward_kernel.get(y.device())(dh, h, y, bias, o, g);
  } else if (g.dbias.defined()) {
    g.dbias.zero_();
  }
  return g;
}

}  // namespace realmt::ops
