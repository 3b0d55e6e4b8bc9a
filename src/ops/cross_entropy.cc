#include "ops/cross_entropy.h"

#include <vector>

namespace realmt::ops {

namespace {

// Shape of the logits without the last axis: what targets, loss and lse have.
Shape row_shape(const Shape& logits) {
  std::vector<int64_t> d = logits.vec();
  d.pop_back();
  return Shape(d);
}

void check_logits_targets(const Tensor& logits, const Tensor& targets, const CrossEntropyOptions& o,
                          const char* op) {
  check_defined(logits, op, "logits");
  check_defined(targets, op, "targets");
  check_same_device(logits, targets, op);
  check_dtype(targets, DType::kI32, op, "targets");
  REALMT_CHECK(logits.rank() >= 1 && logits.dim(-1) > 0,
               "{}: logits {} need a non-empty last (V) axis", op, logits.shape());
  REALMT_CHECK(targets.shape() == row_shape(logits.shape()),
               "{}: targets {} must have the shape of logits {} without the last axis", op,
               targets.shape(), logits.shape());
  REALMT_CHECK(o.label_smoothing >= 0.0 && o.label_smoothing <= 1.0,
               "{}: label_smoothing {} is outside [0, 1]", op, o.label_smoothing);
  // On the host, so that every backend reports a bad target the same way (and kernels, which
  // may not throw from threads or device code, can index without a bounds check).
  const Tensor host = targets.to(Device::cpu());
  const int32_t* t = host.data<int32_t>();
  const int64_t v = logits.dim(-1);
  for (int64_t i = 0; i < host.numel(); ++i) {
    REALMT_CHECK(
        t[i] == o.ignore_index || (t[i] >= 0 && t[i] < v),
        "{}: target {} at row {} is outside the vocabulary [0, {}) and is not the ignore_index {}",
        op, t[i], i, v, o.ignore_index);
  }
}

}  // namespace

CrossEntropyResult cross_entropy(const Tensor& logits, const Tensor& targets,
                                 const CrossEntropyOptions& o) {
  check_logits_targets(logits, targets, o, "cross_entropy");
  const Shape rows = targets.shape();
  CrossEntropyResult r{Tensor::empty(rows, logits.dtype(), logits.device()),
                       Tensor::empty(rows, logits.dtype(), logits.device())};
  if (targets.numel() > 0)
    cross_entropy_kernel.get(logits.device())(logits, targets, o, r.loss, r.lse);
  return r;
}

Tensor cross_entropy_backward(const Tensor& dloss, const Tensor& logits, const Tensor& targets,
                              const Tensor& lse, const CrossEntropyOptions& o) {
  const char* op = "cross_entropy_backward";
  check_logits_targets(logits, targets, o, op);
  check_defined(dloss, op, "dloss");
  check_defined(lse, op, "lse");
  check_same_device(dloss, logits, op);
  check_same_device(lse, logits, op);
  for (const Tensor* t : {&dloss, &lse}) {
    REALMT_CHECK(t->shape() == targets.shape() && t->dtype() == logits.dtype(),
                 "{}: {} must be {} {} like the targets, not {}", op, t == &dloss ? "dloss" : "lse",
                 logits.dtype(), targets.shape(), *t);
  }
  Tensor dlogits = Tensor::empty(logits.shape(), logits.dtype(), logits.device());
  if (targets.numel() > 0)
    cross_entropy_backward_kernel.get(logits.device())(dloss, logits, targets, lse, o, dlogits);
  return dlogits;
}

}  // namespace realmt::ops
