#include "ops/linear_log_softmax_topk.h"

namespace realmt::ops {

LinearTopkResult linear_log_softmax_topk(const Tensor& h, const OutputWeight& w,
                                         const Tensor& token_bias, const LinearTopkOptions& o) {
  constexpr const char* op = "linear_log_softmax_topk";
  check_defined(h, op, "h");
  const bool quantized = w.quantized.defined();
  REALMT_CHECK(
      quantized || (w.weight.defined() && w.weight.rank() == 2 && w.weight.dtype() == DType::kF32),
      "{}: an f32 [V, D] or quantized output table is needed", op);
  REALMT_CHECK(!quantized || !w.weight.defined() ||
                   (w.weight.dtype() == DType::kF32 &&
                    w.weight.shape() == Shape({w.quantized.rows(), w.quantized.cols()}) &&
                    w.weight.device() == w.quantized.values.device()),
               "{}: the f32 table beside an int8 one must be f32 [{}, {}] on its device, got {}",
               op, w.quantized.rows(), w.quantized.cols(), w.weight);
  REALMT_CHECK(h.rank() == 2 && h.dtype() == DType::kF32 && h.dim(1) == w.dim(),
               "{}: h must be f32 [N, {}] for a table of {} x {}, got {}", op, w.dim(), w.vocab(),
               w.dim(), h);
  REALMT_CHECK(h.device() == w.device(), "{}: h on {} and the table on {}", op, h.device(),
               w.device());
  const int64_t n = h.dim(0), v = w.vocab();
  REALMT_CHECK(o.k >= 1 && o.k <= v, "{}: k = {} must be in [1, {}] (the vocabulary)", op, o.k, v);
  REALMT_CHECK(o.also_token < v, "{}: also_token {} outside the vocabulary of {}", op, o.also_token,
               v);
  REALMT_CHECK(o.chunk >= 0, "{}: chunk must be >= 0, got {}", op, o.chunk);
  if (w.bias.defined()) {
    REALMT_CHECK(
        w.bias.dtype() == DType::kF32 && w.bias.numel() == v && w.bias.device() == h.device(),
        "{}: the output bias must be f32 [{}] on {}, got {}", op, v, h.device(), w.bias);
  }
  if (token_bias.defined()) {
    check_same_device(h, token_bias, op);
    REALMT_CHECK(token_bias.dtype() == DType::kF32 && token_bias.numel() == v,
                 "{}: token_bias must be f32 [{}], got {}", op, v, token_bias);
  }
  LinearTopkResult r;
  r.values = Tensor::empty({n, o.k}, DType::kF32, h.device());
  r.indices = Tensor::empty({n, o.k}, DType::kI32, h.device());
  r.lse = Tensor::empty({n}, DType::kF32, h.device());
  if (o.also_token >= 0) r.also = Tensor::empty({n}, DType::kF32, h.device());
  if (n > 0) linear_log_softmax_topk_kernel.get(h.device())(h, w, token_bias, o, r);
  return r;
}

}  // namespace realmt::ops
