// CUDA dropout: one thread per Philox block (4 stream numbers, so 4 elements), computing the
// same philox4x32_10(seed, 0, block) as the CPU (backend/cuda/philox.cuh): the masks are
// identical. f16/bf16 scale in float and round once.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/philox.cuh"
#include "ops/dropout.h"

namespace realmt::ops {
namespace {

// Stream indices [first, first + n); block b covers indices 4 (block0 + b) .. + 3, of which
// the first and last blocks may hold some outside the range.
template <typename T>
__global__ void dropout_blocks(const T* x, T* y, unsigned long long seed, unsigned long long first,
                               unsigned long long n, unsigned long long blocks, uint32_t threshold,
                               cuda::compute_t<T> scale) {
  const unsigned long long block0 = first >> 2, end = first + n;
  for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; b < blocks;
       b += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long block = block0 + b;
    const cuda::Philox4 bits = cuda::philox4x32_10(seed, 0, block);
    const unsigned long long lo = block * 4 > first ? block * 4 : first;
    const unsigned long long hi = block * 4 + 4 < end ? block * 4 + 4 : end;
    for (unsigned long long i = lo; i < hi; ++i) {
      const unsigned long long e = i - first;
      // dropout_keep(bits, threshold) of the header (a host function; were it constexpr,
      // --expt-relaxed-constexpr would let this kernel call it).
      const bool keep = (bits.x[i & 3] >> 8) >= threshold;
      y[e] =
          keep ? cuda::store<T>(cuda::load(x[e]) * scale) : cuda::store<T>(cuda::compute_t<T>(0));
    }
  }
}

void dropout_cuda(const Tensor& x, const DropoutOptions& o, Tensor& y) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const unsigned long long n = static_cast<unsigned long long>(x.numel());
  const unsigned long long first = o.offset, end = first + n;
  const unsigned long long blocks = ((end - 1) >> 2) - (first >> 2) + 1;
  const uint32_t threshold = dropout_threshold(o.p);
  cuda::visit_float(x.dtype(), "dropout", [&](auto tag) {
    using T = decltype(tag);
    // The scale 1 / (1 - p) is computed in double and rounded once to the compute type (the
    // element type for f32/f64, as on the CPU).
    const auto scale = static_cast<cuda::compute_t<T>>(1.0 / (1.0 - o.p));
    dropout_blocks<T>
        <<<cuda::grid_for(static_cast<long long>(blocks)), cuda::kBlockSize, 0, stream>>>(
            cuda::device_ptr<T>(x), cuda::device_ptr<T>(y), o.seed, first, n, blocks, threshold,
            scale);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(dropout_kernel, kCuda, dropout_cuda);

}  // namespace realmt::ops
