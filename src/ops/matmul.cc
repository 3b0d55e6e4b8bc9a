#include "ops/matmul.h"

#include <atomic>

namespace realmt::ops {

namespace {

std::atomic<bool> g_allow_tf32{false};

GemmShape plan(const Tensor& a, const Tensor& b, const MatmulOptions& o, Shape* out_shape) {
  check_defined(a, "matmul", "a");
  check_defined(b, "matmul", "b");
  check_same_device(a, b, "matmul");
  REALMT_CHECK(a.dtype() == b.dtype(), "matmul: dtypes differ ({} and {})", a.dtype(), b.dtype());
  REALMT_CHECK(is_floating(a.dtype()), "matmul: needs a floating dtype, got {}", a.dtype());
  REALMT_CHECK(a.rank() >= 2 && b.rank() >= 2, "matmul: operands need rank >= 2, got {} and {}",
               a.shape(), b.shape());
  const int64_t am = a.dim(-2), ak = a.dim(-1);
  const int64_t m = o.trans_a ? ak : am, k = o.trans_a ? am : ak;
  const int64_t bk = o.trans_b ? b.dim(-1) : b.dim(-2);
  const int64_t n = o.trans_b ? b.dim(-2) : b.dim(-1);
  REALMT_CHECK(k == bk, "matmul: inner extents differ: {}{} @ {}{} ({} vs {})", a.shape(),
               o.trans_a ? "^T" : "", b.shape(), o.trans_b ? "^T" : "", k, bk);
  // Either operand may be 2-D and shared by every member of the other's batch.
  const Tensor& batched = a.rank() >= b.rank() ? a : b;
  GemmShape g{batched.shape().outer(-2),
              m,
              n,
              k,
              m * k,
              k * n,
              m * n,
              o.trans_a,
              o.trans_b,
              o.alpha,
              0.0f,
              o.allow_tf32 || tf32_allowed()};
  if (a.rank() == 2 && b.rank() > 2) g.stride_a = 0;
  if (b.rank() == 2 && a.rank() > 2) g.stride_b = 0;
  if (a.rank() > 2 && b.rank() > 2) {
    REALMT_CHECK(b.rank() == a.rank(), "matmul: batched operands need equal ranks, got {} and {}",
                 a.shape(), b.shape());
    for (int i = 0; i < a.rank() - 2; ++i)
      REALMT_CHECK(a.dim(i) == b.dim(i), "matmul: batch extents differ: {} and {}", a.shape(),
                   b.shape());
  }
  std::vector<int64_t> dims = batched.shape().vec();
  dims[dims.size() - 2] = m;
  dims[dims.size() - 1] = n;
  *out_shape = Shape(dims);
  return g;
}

}  // namespace

bool tf32_allowed() { return g_allow_tf32.load(std::memory_order_relaxed); }
AllowTf32::AllowTf32(bool allow) : previous_(g_allow_tf32.exchange(allow)) {}
AllowTf32::~AllowTf32() { g_allow_tf32.store(previous_); }

Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options) {
  Shape shape;
  GemmShape g = plan(a, b, options, &shape);
  Tensor c = Tensor::empty(shape, a.dtype(), a.device());
  if (g.k == 0) {
    c.zero_();
    return c;
  }
  matmul_kernel.get(a.device())(a, b, c, g);
  return c;
}

void matmul_into(const Tensor& a, const Tensor& b, Tensor& c, const MatmulOptions& options,
                 float beta) {
  Shape shape;
  GemmShape g = plan(a, b, options, &shape);
  REALMT_CHECK(c.shape() == shape && c.dtype() == a.dtype(),
               "matmul_into: C is {}, result is {} {}", c, a.dtype(), shape);
  check_same_device(a, c, "matmul_into");
  g.beta = beta;
  matmul_kernel.get(a.device())(a, b, c, g);
}

}  // namespace realmt::ops
