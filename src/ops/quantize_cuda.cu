// CUDA int8 kernels (ops/quantize.h): the CPU's scheme (backend/cpu/int8_gemm.h) with the same
// f32 operations in the same order, so the int8 values, u8 activations, scales, steps, sums and
// s32 products equal the CPU's bit for bit. The rounding steps use the _rn intrinsics: nvcc would
// otherwise contract x * s + 0.5 into one FMA (one rounding, where the CPU code, as GCC compiles
// it, rounds twice). The dequantization follows the CPU's FMA form (dequantize below).
//   quantize_rows: a block per weight row; the |w| maximum and the values' sum by block
//     reductions (exact in any order). The limit is cpu::int8_weight_limit() of this machine's
//     CPU, so a weight quantized here equals the CPU kernel's.
//   quantized_matmul: a block per row of x quantizes it to u8 (its min and max by block
//     reductions), then a tiled GEMM: 64 x 64 outputs a block, 4 x 4 a thread, K in steps of 64
//     bytes through shared memory as packed 4-byte words (zeros past K and past the last row, so
//     any shape works), the products by dp4a (u8 x s8 summed in s32: exact, as the CPU's), and
//     the dequantization in its epilogue.
#include "backend/cpu/int8_gemm.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/quantize.h"

namespace realmt::ops {
namespace {

constexpr int kRowBlock = 256;             // threads of the quantization kernels (a block per row)
constexpr long long kMaxGrid = 1LL << 20;  // rows or tiles beyond this are looped over
constexpr int kTile = 64;                  // GEMM outputs per block side
constexpr int kTileWords = 16;             // K per GEMM step, in 4-byte words (64 bytes)
constexpr int kSide = 16;  // the GEMM block's threads per side (16 x 16); 4 x 4 outputs each
constexpr int kPerThread = kTile / kSide;

// Minimum that ignores a NaN in b (the CPU's std::min(mn, x) for numbers).
struct MinOp {
  template <typename C>
  __device__ static C apply(C a, C b) {
    return b < a ? b : a;
  }
  template <typename C>
  __device__ static C identity() {
    return INFINITY;
  }
};

// cpu::round_to_int: +-0.5 added in f32 (rounded), then truncated.
__device__ __forceinline__ int round_to_int(float v) {
  return static_cast<int>(__fadd_rn(v, v >= 0.0f ? 0.5f : -0.5f));
}

// A grid of one block per row (or tile), capped.
inline unsigned grid_rows(long long rows) {
  return static_cast<unsigned>(rows < kMaxGrid ? rows : kMaxGrid);
}

// Row r of the weight viewed as [n, k]: w is [n, k] (rows_out) or [k, n].
__global__ void __launch_bounds__(kRowBlock)
    quantize_weight_rows(const float* w, bool rows_out, long long n, long long k, int limit,
                         int8_t* q, float* inv, int32_t* sums) {
  __shared__ float smem_max[cuda::kWarpSize];
  __shared__ int smem_sum[cuda::kWarpSize];
  for (long long r = blockIdx.x; r < n; r += gridDim.x) {
    const long long stride = rows_out ? 1 : n;
    const float* row = rows_out ? w + r * k : w + r;
    float mx = 0.0f;
    for (long long c = threadIdx.x; c < k; c += blockDim.x)
      mx = cuda::MaxOp::apply(mx, fabsf(row[c * stride]));
    mx = cuda::block_reduce<cuda::MaxOp>(mx, smem_max);
    const float scale = mx > 0.0f ? __fdiv_rn(static_cast<float>(limit), mx) : 1.0f;
    int sum = 0;
    for (long long c = threadIdx.x; c < k; c += blockDim.x) {
      const int v = min(max(round_to_int(__fmul_rn(row[c * stride], scale)), -limit), limit);
      q[r * k + c] = static_cast<int8_t>(v);
      sum += v;
    }
    sum = cuda::block_reduce<cuda::SumOp>(sum, smem_sum);
    if (threadIdx.x == 0) {
      inv[r] = __fdiv_rn(1.0f, scale);
      sums[r] = sum;
    }
  }
}

// cpu::quantize_activations for m rows of k: q u8, step and zero per row.
__global__ void __launch_bounds__(kRowBlock)
    quantize_activation_rows(const float* x, long long m, long long k, uint8_t* q, float* step,
                             float* zero) {
  __shared__ float smem[cuda::kWarpSize];
  for (long long r = blockIdx.x; r < m; r += gridDim.x) {
    const float* xr = x + r * k;
    float mn = 0.0f, mx = 0.0f;
    for (long long c = threadIdx.x; c < k; c += blockDim.x) {
      mn = MinOp::apply(mn, xr[c]);
      mx = cuda::MaxOp::apply(mx, xr[c]);
    }
    mn = cuda::block_reduce<MinOp>(mn, smem);
    mx = cuda::block_reduce<cuda::MaxOp>(mx, smem);
    const float s = mx > mn ? __fdiv_rn(255.0f, __fsub_rn(mx, mn)) : 1.0f;
    // (x - mn) s >= 0; the min keeps a 255.00002 from wrapping to 0, as on the CPU.
    for (long long c = threadIdx.x; c < k; c += blockDim.x)
      q[r * k + c] =
          static_cast<uint8_t>(min(round_to_int(__fmul_rn(__fsub_rn(xr[c], mn), s)), 255));
    if (threadIdx.x == 0) {
      step[r] = __fdiv_rn(1.0f, s);
      zero[r] = mn;
    }
  }
}

// Bytes k0 .. k0 + 3 of row `row` of a [rows, k] byte matrix packed little-endian (byte b in
// bits 8b..8b+7), zeros past k and past the last row.
template <typename T>
__device__ __forceinline__ unsigned pack4(const T* p, long long rows, long long k, long long row,
                                          long long k0) {
  unsigned word = 0;
  if (row < rows)
    for (int b = 0; b < 4; ++b)
      if (k0 + b < k)
        word |= static_cast<unsigned>(static_cast<uint8_t>(p[row * k + k0 + b])) << (8 * b);
  return word;
}

// c + sum_b a.byte[b] * b.byte[b], a's bytes unsigned, b's signed, summed in s32.
__device__ __forceinline__ int dp4a_u8s8(unsigned a, unsigned b, int c) {
  int d;
  asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// cpu::dequantize_products for one output, inv (step c + zero sum), in the form GCC compiles it
// to wherever FMA is available (its avx2 and avx512 copies, and every copy of a -march=native
// build on such a CPU): zero sum rounded, then one FMA adds step c. (The baseline copy of a
// portable build rounds step c too: one rounding apart.)
__device__ __forceinline__ float dequantize(int c, float step, float zero, float inv, int sum) {
  return __fmul_rn(inv, __fmaf_rn(step, __int2float_rn(c), __fmul_rn(zero, __int2float_rn(sum))));
}

// y[m, n] = dequantize(sum_k a[m, k] b[n, k]): a u8 [m, k], b s8 [n, k], y f32 [m, n].
__global__ void __launch_bounds__(kSide* kSide)
    gemm_u8s8_dequantize(const uint8_t* a, const int8_t* b, long long m, long long n, long long k,
                         const float* step, const float* zero, const float* inv,
                         const int32_t* sums, float* y) {
  // +1 word a row: the 16 threads reading 16 rows of bs hit 16 banks.
  __shared__ unsigned as[kTile][kTileWords + 1];
  __shared__ unsigned bs[kTile][kTileWords + 1];
  const int tx = threadIdx.x % kSide, ty = threadIdx.x / kSide;
  const long long tiles_n = (n + kTile - 1) / kTile, tiles = (m + kTile - 1) / kTile * tiles_n;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long m0 = t / tiles_n * kTile, n0 = t % tiles_n * kTile;
    int acc[kPerThread][kPerThread] = {};
    for (long long k0 = 0; k0 < k; k0 += 4 * kTileWords) {
      for (int e = threadIdx.x; e < kTile * kTileWords; e += kSide * kSide) {
        const int row = e / kTileWords, word = e % kTileWords;
        as[row][word] = pack4(a, m, k, m0 + row, k0 + 4 * word);
        bs[row][word] = pack4(b, n, k, n0 + row, k0 + 4 * word);
      }
      __syncthreads();
      for (int w = 0; w < kTileWords; ++w) {
        unsigned av[kPerThread], bv[kPerThread];
        for (int i = 0; i < kPerThread; ++i) av[i] = as[ty + kSide * i][w];
        for (int j = 0; j < kPerThread; ++j) bv[j] = bs[tx + kSide * j][w];
        for (int i = 0; i < kPerThread; ++i)
          for (int j = 0; j < kPerThread; ++j) acc[i][j] = dp4a_u8s8(av[i], bv[j], acc[i][j]);
      }
      __syncthreads();  // the tiles are read before the next step overwrites them
    }
    for (int i = 0; i < kPerThread; ++i) {
      const long long row = m0 + ty + kSide * i;
      if (row >= m) continue;
      for (int j = 0; j < kPerThread; ++j) {
        const long long col = n0 + tx + kSide * j;
        if (col < n)
          y[row * n + col] = dequantize(acc[i][j], step[row], zero[row], inv[col], sums[col]);
      }
    }
  }
}

void quantize_rows_cuda(const Tensor& w, WeightLayout layout, QuantizedWeight& out) {
  const int64_t n = out.rows(), k = out.cols();
  const int device = w.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  quantize_weight_rows<<<grid_rows(n), kRowBlock, 0, stream>>>(
      cuda::device_ptr<float>(w), layout == WeightLayout::kRowsOut, n, k, cpu::int8_weight_limit(),
      cuda::device_ptr<int8_t>(out.values), cuda::device_ptr<float>(out.inv_scales),
      cuda::device_ptr<int32_t>(out.sums));
  REALMT_CUDA_CHECK_LAUNCH();
}

void quantized_matmul_cuda(const Tensor& x, const QuantizedWeight& w, Tensor& y) {
  const int64_t k = w.cols(), n = w.rows(), m = x.numel() / k;
  const int device = x.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  // Scratch from the caching allocator, ordered on the stream as the kernels.
  Tensor qx = Tensor::empty({m, k}, DType::kU8, x.device());
  Tensor rows =
      Tensor::empty({2, m}, DType::kF32, x.device());  // the rows' steps, then their zero points
  float* step = cuda::device_ptr<float>(rows);
  quantize_activation_rows<<<grid_rows(m), kRowBlock, 0, stream>>>(
      cuda::device_ptr<float>(x), m, k, cuda::device_ptr<uint8_t>(qx), step, step + m);
  REALMT_CUDA_CHECK_LAUNCH();
  const long long tiles = (m + kTile - 1) / kTile * ((n + kTile - 1) / kTile);
  gemm_u8s8_dequantize<<<grid_rows(tiles), kSide * kSide, 0, stream>>>(
      cuda::device_ptr<uint8_t>(qx), cuda::device_ptr<int8_t>(w.values), m, n, k, step, step + m,
      cuda::device_ptr<float>(w.inv_scales), cuda::device_ptr<int32_t>(w.sums),
      cuda::device_ptr<float>(y));
  REALMT_CUDA_CHECK_LAUNCH();
}

}  // namespace

REALMT_REGISTER_KERNEL(quantize_rows_kernel, kCuda, quantize_rows_cuda);
REALMT_REGISTER_KERNEL(quantized_matmul_kernel, kCuda, quantized_matmul_cuda);

}  // namespace realmt::ops
