// CUDA optimizer kernels over the flat arenas: Adam and EMA are one elementwise pass each (the
// same operation order as the CPU kernel); sum_squares reduces fixed chunks into double
// partials and then the partials in a fixed tree, so the norm does not vary between runs.
#include <climits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/optimizer.h"

namespace realmt::ops {
namespace {

struct AdamConstants {
  double b1, b2, c1, c2, scale, lr, eps, inv_bc2;
  bool denom;
};

template <typename T>
__global__ void adam(T* p, const T* g, T* m, T* v, long long n, AdamConstants k) {
  const T b1 = T(k.b1), b2 = T(k.b2), c1 = T(k.c1), c2 = T(k.c2);
  const T scale = T(k.scale), lr = T(k.lr), eps = T(k.eps), inv_bc2 = T(k.inv_bc2);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const T gi = g[i] * scale;
    const T mi = b1 * m[i] + c1 * gi;
    const T vi = b2 * v[i] + c2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] -= k.denom ? lr * mi / (sqrt(vi * inv_bc2) + eps) : lr * mi;
  }
}

template <typename T>
__global__ void ema(T* e, const T* p, long long n, double alpha) {
  const T a = T(alpha);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    e[i] += a * (p[i] - e[i]);
}

constexpr int kSquaresBlock = 256;
constexpr long long kSquaresChunk = 1 << 16;  // elements per partial

// Block c sums x^2 over elements [c * kSquaresChunk, (c + 1) * kSquaresChunk) into partial[c].
template <typename T>
__global__ void squares_chunks(const T* x, long long n, double* partial) {
  __shared__ double smem[cuda::kWarpSize];
  const long long begin = blockIdx.x * kSquaresChunk;
  const long long end = begin + kSquaresChunk < n ? begin + kSquaresChunk : n;
  double acc = 0;
  for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const double xi = static_cast<double>(x[i]);
    acc += xi * xi;
  }
  acc = cuda::block_reduce<cuda::SumOp>(acc, smem);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

__global__ void sum_partials(const double* partial, long long chunks, double* out) {
  __shared__ double smem[cuda::kWarpSize];
  double acc = 0;
  for (long long c = threadIdx.x; c < chunks; c += blockDim.x) acc += partial[c];
  acc = cuda::block_reduce<cuda::SumOp>(acc, smem);
  if (threadIdx.x == 0) *out = acc;
}

// The dtypes the header promises: f32, and f64 for tests.
template <typename Fn>
void visit_f32_f64(DType t, const char* op, Fn&& fn) {
  if (t == DType::kF32) return fn(float{});
  if (t == DType::kF64) return fn(double{});
  throw_unsupported_dtype(op, t);
}

void adam_cuda(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v,
               const AdamStep& s) {
  const int device = p.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const AdamConstants k{s.beta1,          s.beta2,     1 - s.beta1, 1 - s.beta2,
                        s.grad_scale,     s.step_size, s.eps,       1.0 / s.bias_correction2,
                        s.use_denominator};
  const long long n = p.numel();
  visit_f32_f64(p.dtype(), "adam_update", [&](auto tag) {
    using T = decltype(tag);
    adam<T><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(
        cuda::device_ptr<T>(p), cuda::device_ptr<T>(g), cuda::device_ptr<T>(m),
        cuda::device_ptr<T>(v), n, k);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

void ema_cuda(const Tensor& e, const Tensor& p, double alpha) {
  const int device = p.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long n = p.numel();
  visit_f32_f64(p.dtype(), "ema_update", [&](auto tag) {
    using T = decltype(tag);
    ema<T><<<cuda::grid_for(n), cuda::kBlockSize, 0, stream>>>(cuda::device_ptr<T>(e),
                                                               cuda::device_ptr<T>(p), n, alpha);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

double squares_cuda(const Tensor& x) {
  const long long n = x.numel();
  if (n == 0) return 0.0;
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long chunks = (n + kSquaresChunk - 1) / kSquaresChunk;
  REALMT_CHECK(chunks <= INT_MAX, "sum_squares: {} elements are too many", n);
  Tensor partial = Tensor::empty({chunks + 1}, DType::kF64, x.device());  // partials, then total
  double* pp = static_cast<double*>(partial.raw());
  visit_f32_f64(x.dtype(), "sum_squares", [&](auto tag) {
    using T = decltype(tag);
    squares_chunks<T><<<static_cast<unsigned>(chunks), kSquaresBlock, 0, stream>>>(
        cuda::device_ptr<T>(x), n, pp);
    REALMT_CUDA_CHECK_LAUNCH();
  });
  sum_partials<<<1, 1024, 0, stream>>>(pp, chunks, pp + chunks);
  REALMT_CUDA_CHECK_LAUNCH();
  return partial.narrow0(chunks, chunks + 1).item();  // a synchronising copy to the host
}

}  // namespace

REALMT_REGISTER_KERNEL(adam_update_kernel, kCuda, adam_cuda);
REALMT_REGISTER_KERNEL(ema_update_kernel, kCuda, ema_cuda);
REALMT_REGISTER_KERNEL(sum_squares_kernel, kCuda, squares_cuda);

}  // namespace realmt::ops
