// CUDA binary elementwise kernels: one thread per output element over the collapsed
// broadcast plan. Operands of equal shape (plan of rank 1 with unit strides) take a
// contiguous fast path; otherwise a thread turns its flat index into offsets of a and b.
// out may alias a (add_): each element is read before it is written, by the same thread.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "ops/elementwise.h"

namespace realmt::ops {
namespace {

struct AddF {
  template <typename C>
  __device__ static C f(C x, C y) {
    return x + y;
  }
};
struct SubF {
  template <typename C>
  __device__ static C f(C x, C y) {
    return x - y;
  }
};
struct MulF {
  template <typename C>
  __device__ static C f(C x, C y) {
    return x * y;
  }
};
struct DivF {
  template <typename C>
  __device__ static C f(C x, C y) {
    return x / y;
  }
};

// The plan as a plain struct the kernel takes by value (std::array is host code).
struct DevicePlan {
  int rank;
  long long dims[kMaxDims];
  long long stride_a[kMaxDims];
  long long stride_b[kMaxDims];
};

template <typename F, typename T>
__global__ void contiguous_kernel(const T* a, const T* b, T* out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = cuda::store<T>(F::f(cuda::load(a[i]), cuda::load(b[i])));
}

template <typename F, typename T>
__global__ void broadcast_kernel(const T* a, const T* b, T* out, long long n, DevicePlan p) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long rem = i, oa = 0, ob = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const long long idx = rem % p.dims[d];
      rem /= p.dims[d];
      oa += idx * p.stride_a[d];
      ob += idx * p.stride_b[d];
    }
    out[i] = cuda::store<T>(F::f(cuda::load(a[oa]), cuda::load(b[ob])));
  }
}

template <typename F>
void binary_cuda(const Tensor& a, const Tensor& b, Tensor& out, const BroadcastPlan& plan) {
  const int device = out.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long n = plan.numel;
  cuda::visit_float(a.dtype(), "elementwise", [&](auto tag) {
    using T = decltype(tag);
    const T* pa = cuda::device_ptr<T>(a);
    const T* pb = cuda::device_ptr<T>(b);
    T* po = cuda::device_ptr<T>(out);
    if (plan.rank == 1 && plan.stride_a[0] == 1 && plan.stride_b[0] == 1) {
      contiguous_kernel<F, T><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(pa, pb, po, n);
    } else {
      DevicePlan dp{};
      dp.rank = plan.rank;
      for (int d = 0; d < plan.rank; ++d) {
        dp.dims[d] = plan.dims[d];
        dp.stride_a[d] = plan.stride_a[d];
        dp.stride_b[d] = plan.stride_b[d];
      }
      broadcast_kernel<F, T><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(pa, pb, po, n, dp);
    }
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(add_kernel, kCuda, binary_cuda<AddF>);
REALMT_REGISTER_KERNEL(sub_kernel, kCuda, binary_cuda<SubF>);
REALMT_REGISTER_KERNEL(mul_kernel, kCuda, binary_cuda<MulF>);
REALMT_REGISTER_KERNEL(div_kernel, kCuda, binary_cuda<DivF>);

}  // namespace realmt::ops
