// CUDA masked_fill: one thread per element of y over the broadcast plan (x is contiguous like
// y; the mask is walked with its broadcast strides). The fill value is converted to x's dtype
// on the host exactly as the CPU kernel converts it, and elements move as 1/2/4/8-byte words,
// so one kernel serves all six dtypes.
#include <cstring>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "ops/masked_fill.h"

namespace realmt::ops {
namespace {

struct MaskPlan {
  int rank;
  long long dims[kMaxDims];
  long long stride_mask[kMaxDims];
};

template <typename W>
__global__ void fill_elements(const W* x, const uint8_t* mask, W value, long long n, MaskPlan p,
                              W* y) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long rem = i, om = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      om += (rem % p.dims[d]) * p.stride_mask[d];
      rem /= p.dims[d];
    }
    y[i] = mask[om] ? value : x[i];
  }
}

// The fill value in x's dtype (scalar_cast, as the CPU kernel), as raw bits of width W.
template <typename W>
W value_bits(DType dtype, double value) {
  W bits{};
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (sizeof(T) == sizeof(W)) {
      const T v = scalar_cast<T>(value);
      std::memcpy(&bits, &v, sizeof(W));
    }
  });
  return bits;
}

template <typename W>
void launch(const Tensor& x, const Tensor& mask, double value, const BroadcastPlan& plan, Tensor& y,
            cudaStream_t stream) {
  MaskPlan p{};
  p.rank = plan.rank;
  for (int d = 0; d < plan.rank; ++d) {
    p.dims[d] = plan.dims[d];
    p.stride_mask[d] = plan.stride_b[d];
  }
  const long long n = plan.numel;
  fill_elements<W><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(
      static_cast<const W*>(x.raw()), static_cast<const uint8_t*>(mask.raw()),
      value_bits<W>(x.dtype(), value), n, p, static_cast<W*>(y.raw()));
  REALMT_CUDA_CHECK_LAUNCH();
}

void masked_fill_cuda(const Tensor& x, const Tensor& mask, double value, const BroadcastPlan& plan,
                      Tensor& y) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  switch (dtype_size(x.dtype())) {
    case 1: return launch<uint8_t>(x, mask, value, plan, y, stream);
    case 2: return launch<uint16_t>(x, mask, value, plan, y, stream);
    case 4: return launch<uint32_t>(x, mask, value, plan, y, stream);
    case 8: return launch<uint64_t>(x, mask, value, plan, y, stream);
  }
  REALMT_ASSERT(false, "masked_fill: element size {}", dtype_size(x.dtype()));
}

}  // namespace

REALMT_REGISTER_KERNEL(masked_fill_kernel, kCuda, masked_fill_cuda);

}  // namespace realmt::ops
