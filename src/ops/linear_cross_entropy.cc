// The chunk loop is written once for every device: GEMMs through ops::matmul_into, the bias
// through ops/bias, the per-chunk loss and dZ through the cross_entropy_rows kernel.
#include "ops/linear_cross_entropy.h"

#include <algorithm>

#include "ops/bias.h"
#include "ops/matmul.h"

namespace realmt::ops {

LinearCrossEntropyResult linear_cross_entropy(const Tensor& h, const Tensor& w, const Tensor& bias,
                                              const Tensor& targets,
                                              const LinearCrossEntropyOptions& o) {
  const char* op = "linear_cross_entropy";
  check_defined(h, op, "h");
  check_defined(w, op, "w");
  check_defined(targets, op, "targets");
  check_same_device(h, w, op);
  check_same_device(h, targets, op);
  check_dtype(targets, DType::kI32, op, "targets");
  REALMT_CHECK(h.rank() == 2 && w.rank() == 2 && h.dim(1) == w.dim(1) && h.dtype() == w.dtype() &&
                   is_floating(h.dtype()),
               "{}: h [N, D] and w [V, D] of one floating dtype needed, got {} and {}", op, h, w);
  REALMT_CHECK(targets.shape() == Shape{h.dim(0)}, "{}: targets {} must be [{}]", op,
               targets.shape(), h.dim(0));
  REALMT_CHECK(o.label_smoothing >= 0.0 && o.label_smoothing <= 1.0,
               "{}: label_smoothing {} is outside [0, 1]", op, o.label_smoothing);
  const int64_t n = h.dim(0), v = w.dim(0);
  if (bias.defined()) {
    check_same_device(h, bias, op);
    REALMT_CHECK(bias.shape() == Shape{v} && bias.dtype() == h.dtype(), "{}: bias {} must be [{}]",
                 op, bias, v);
  }
  {  // Targets checked on the host (kernels index without bounds checks), naming the row.
    const Tensor host = targets.to(Device::cpu());
    const int32_t* t = host.data<int32_t>();
    for (int64_t i = 0; i < n; ++i)
      REALMT_CHECK(t[i] == o.ignore_index || (t[i] >= 0 && t[i] < v),
                   "{}: target {} at row {} is outside the vocabulary [0, {}) and is not the "
                   "ignore_index {}",
                   op, t[i], i, v, o.ignore_index);
  }
  const DType loss_dtype = h.dtype() == DType::kF64 ? DType::kF64 : DType::kF32;
  LinearCrossEntropyResult r;
  r.loss = Tensor::empty({n}, loss_dtype, h.device());
  if (o.with_grad) {
    r.dh = Tensor::empty(h.shape(), h.dtype(), h.device());
    r.dw = Tensor::zeros(w.shape(), w.dtype(), w.device());
    if (bias.defined()) r.dbias = Tensor::zeros(bias.shape(), bias.dtype(), bias.device());
  }
  if (n == 0) return r;
  const int64_t rows = std::min(
      n, o.chunk_rows > 0 ? o.chunk_rows : std::max<int64_t>(64, (int64_t(8) << 20) / (v * 4)));
  Tensor z = Tensor::empty({rows, v}, h.dtype(), h.device());
  for (int64_t r0 = 0; r0 < n; r0 += rows) {
    const int64_t r1 = std::min(n, r0 + rows);
    const Tensor hc = h.narrow0(r0, r1);
    Tensor zc = z.narrow0(0, r1 - r0);
    if (bias.defined()) fill_rows_(zc, bias);
    matmul_into(hc, w, zc, {.trans_b = true}, bias.defined() ? 1.0f : 0.0f);
    Tensor lc = r.loss.narrow0(r0, r1);
    cross_entropy_rows_kernel.get(h.device())(zc, targets.narrow0(r0, r1), o, lc);
    if (!o.with_grad) continue;
    Tensor dhc = r.dh.narrow0(r0, r1);
    matmul_into(zc, w, dhc, {}, 0.0f);
    matmul_into(zc, hc, r.dw, {.trans_a = true}, 1.0f);
    if (bias.defined()) add_column_sums_(zc, r.dbias);
  }
  return r;
}

}  // namespace realmt::ops
