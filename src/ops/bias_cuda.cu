// CUDA bias helpers. fill_rows: one flat grid-stride loop. Column sums: the deterministic
// two-stage reduction of backend/cuda/column_reduce.cuh (fixed row chunks into double partials,
// added in chunk order), so every run gives the same bits.
#include "backend/cuda/column_reduce.cuh"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "ops/bias.h"

namespace realmt::ops {
namespace {

template <typename T>
__global__ void fill_rows_flat(T* y, const T* b, long long total, long long cols) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = b[i % cols];
}

// Adds x[r, j] to column j's sum.
template <typename T>
struct ColumnOf {
  const T* x;
  long long cols;
  __device__ void operator()(long long r, long long j, double (&acc)[1]) const {
    acc[0] += static_cast<double>(cuda::load(x[r * cols + j]));
  }
};

void fill_rows_cuda(Tensor& y, const Tensor& b, int64_t rows, int64_t cols) {
  const int device = y.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  cuda::visit_float(y.dtype(), "fill_rows_", [&](auto tag) {
    using T = decltype(tag);
    fill_rows_flat<T><<<cuda::grid_for(rows * cols), cuda::kBlockSize, 0, stream>>>(
        cuda::device_ptr<T>(y), cuda::device_ptr<T>(b), rows * cols, cols);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

void column_sums_cuda(const Tensor& x, Tensor& out, int64_t rows, int64_t cols) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  cuda::visit_float(x.dtype(), "add_column_sums_", [&](auto tag) {
    using T = decltype(tag);
    const cuda::ColumnOutputs<T, 1> outs{{cuda::device_ptr<T>(out)}, true};
    cuda::column_sums<T, 1>(ColumnOf<T>{cuda::device_ptr<T>(x), cols}, rows, cols, outs, x.device(),
                            stream);
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(fill_rows_kernel, kCuda, fill_rows_cuda);
REALMT_REGISTER_KERNEL(column_sums_kernel, kCuda, column_sums_cuda);

}  // namespace realmt::ops
