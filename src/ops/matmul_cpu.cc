// CPU matmul: one BLAS call per batch member. Small per-member products (attention heads
// while decoding) are spread over threads with single-threaded BLAS calls instead.
#include "backend/cpu/blas.h"
#include "core/parallel.h"
#include "ops/matmul.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
void run(const Tensor& a, const Tensor& b, Tensor& c, const GemmShape& g) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = c.data<T>();
  const int64_t lda = g.trans_a ? g.m : g.k, ldb = g.trans_b ? g.k : g.n;
  auto one = [&](int64_t i) {
    cpu::gemm(g.trans_a, g.trans_b, g.m, g.n, g.k, static_cast<T>(g.alpha), pa + i * g.stride_a,
              lda, pb + i * g.stride_b, ldb, static_cast<T>(g.beta), pc + i * g.stride_c, g.n);
  };
  const int64_t flops = 2 * g.m * g.n * g.k;
  if (g.batch > 1 && flops < (int64_t(1) << 22)) {
    // OpenMP disables nested parallelism by default, so BLAS runs single-threaded in here.
    parallel_for(g.batch, flops, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < g.batch; ++i) one(i);
  }
}

void matmul_cpu(const Tensor& a, const Tensor& b, Tensor& c, const GemmShape& g) {
  visit_float(a.dtype(), "matmul", [&](auto tag) { run<decltype(tag)>(a, b, c, g); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(matmul_kernel, kCpu, matmul_cpu);

}  // namespace realmt::ops
