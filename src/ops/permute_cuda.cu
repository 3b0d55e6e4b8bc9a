// CUDA permute. Elements move as 1/2/4/8-byte words, so one kernel serves every dtype.
// As on the CPU (see PermutePlan), two cases:
//   x_strides[last] == 1: one thread per y element; neighbouring threads read and write
//     neighbouring elements (head split/merge).
//   otherwise: a 2-D transpose between x's contiguous axis and y's last axis, through a
//     32 x 33 shared-memory tile so that both the reads and the writes are coalesced.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "ops/permute.h"

namespace realmt::ops {
namespace {

constexpr int kTile = 32;
constexpr int kTileRows = 8;  // block of 32 x 8 threads, 4 elements per thread per tile

struct DevicePermute {
  int rank;
  int unit;  // the y axis with x stride 1 (transpose case)
  long long dims[kMaxDims];
  long long x_strides[kMaxDims];
};

template <typename W>
__global__ void copy_elements(const W* x, W* y, long long n, DevicePermute p) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long flat = i, off = 0;
    for (int a = p.rank - 1; a >= 0; --a) {
      off += (flat % p.dims[a]) * p.x_strides[a];
      flat /= p.dims[a];
    }
    y[i] = x[off];
  }
}

template <typename W>
__global__ void transpose_tiles(const W* x, W* y, DevicePermute p, long long tiles_m,
                                long long tiles_n, long long num_tiles) {
  __shared__ W tile[kTile][kTile + 1];  // +1: column reads hit distinct banks
  const int last = p.rank - 1, u = p.unit;
  const long long m = p.dims[u], n = p.dims[last];
  const long long xs_n = p.x_strides[last];  // x stride along y's last axis
  long long ys_m = 1;                        // y stride along axis u
  for (int a = u + 1; a < p.rank; ++a) ys_m *= p.dims[a];
  for (long long t = blockIdx.x; t < num_tiles; t += gridDim.x) {
    const long long b = t / (tiles_m * tiles_n), ti = (t / tiles_n) % tiles_m, tj = t % tiles_n;
    // Batch index b runs over the axes other than u and last, in order: its x offset, and
    // its y offset in the contiguous y.
    long long xb = 0, yb = 0, rem = b, stride = 1;
    for (int a = p.rank - 1; a >= 0; --a) {
      const long long d = p.dims[a];
      if (a != u && a != last) {
        const long long idx = rem % d;
        rem /= d;
        xb += idx * p.x_strides[a];
        yb += idx * stride;
      }
      stride *= d;
    }
    const long long i0 = ti * kTile, j0 = tj * kTile;
    // Read: threadIdx.x walks x's contiguous axis (i).
    const long long i = i0 + threadIdx.x;
    for (int jj = threadIdx.y; jj < kTile; jj += kTileRows) {
      const long long j = j0 + jj;
      if (i < m && j < n) tile[jj][threadIdx.x] = x[xb + i + j * xs_n];
    }
    __syncthreads();
    // Write: threadIdx.x walks y's contiguous last axis (j).
    const long long j = j0 + threadIdx.x;
    for (int ii = threadIdx.y; ii < kTile; ii += kTileRows) {
      const long long iw = i0 + ii;
      if (iw < m && j < n) y[yb + iw * ys_m + j] = tile[threadIdx.x][ii];
    }
    __syncthreads();  // the tile is reused by this block's next t
  }
}

template <typename W>
void launch(const Tensor& x, const PermutePlan& plan, Tensor& y, cudaStream_t stream) {
  DevicePermute p{};
  p.rank = plan.rank;
  p.unit = plan.x_unit;
  for (int a = 0; a < plan.rank; ++a) {
    p.dims[a] = plan.dims[a];
    p.x_strides[a] = plan.x_strides[a];
  }
  const W* px = static_cast<const W*>(x.raw());
  W* py = static_cast<W*>(y.raw());
  if (plan.x_strides[plan.rank - 1] == 1) {
    copy_elements<W>
        <<<cuda::grid_for(plan.numel), cuda::kBlockSize, 0, stream>>>(px, py, plan.numel, p);
  } else {
    const long long m = plan.dims[plan.x_unit], n = plan.dims[plan.rank - 1];
    const long long tiles_m = (m + kTile - 1) / kTile, tiles_n = (n + kTile - 1) / kTile;
    const long long num_tiles = plan.numel / (m * n) * tiles_m * tiles_n;
    constexpr long long kMaxGrid = 1LL << 20;
    const unsigned grid = static_cast<unsigned>(num_tiles < kMaxGrid ? num_tiles : kMaxGrid);
    transpose_tiles<W>
        <<<grid, dim3(kTile, kTileRows), 0, stream>>>(px, py, p, tiles_m, tiles_n, num_tiles);
  }
  REALMT_CUDA_CHECK_LAUNCH();
}

void permute_cuda(const Tensor& x, const PermutePlan& plan, Tensor& y) {
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  switch (dtype_size(x.dtype())) {
    case 1: return launch<uint8_t>(x, plan, y, stream);
    case 2: return launch<uint16_t>(x, plan, y, stream);
    case 4: return launch<uint32_t>(x, plan, y, stream);
    case 8: return launch<uint64_t>(x, plan, y, stream);
  }
  REALMT_ASSERT(false, "permute: element size {}", dtype_size(x.dtype()));
}

}  // namespace

REALMT_REGISTER_KERNEL(permute_kernel, kCuda, permute_cuda);

}  // namespace realmt::ops
