// CUDA output layer with selection: the logits [N, V] by cuBLAS (ops::matmul, the GPU has the
// memory for them; plus the output bias by ops::add), then a block per row: the log-sum-exp by
// two block reductions, the "also" column, and k selection rounds as in topk_cuda.cu (round r
// takes the best entry ranked below round r-1's winner, entries ordered by key desc then index
// asc; key = logit + bias, NaN as -inf). int8 tables are a CPU feature: a quantized table is an
// error here.
#include <climits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/linear_log_softmax_topk.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"

namespace realmt::ops {
namespace {

struct Entry {
  float key;
  int index;  // -1: none
};

__device__ __forceinline__ bool better(const Entry& a, const Entry& b) {
  if (a.index < 0) return false;
  if (b.index < 0) return true;
  return a.key > b.key || (a.key == b.key && a.index < b.index);
}

__device__ __forceinline__ Entry warp_best(Entry e) {
  for (int offset = cuda::kWarpSize / 2; offset > 0; offset >>= 1) {
    const Entry o{__shfl_xor_sync(0xffffffffu, e.key, offset), __shfl_xor_sync(0xffffffffu, e.index, offset)};
    if (better(o, e)) e = o;
  }
  return e;
}

__device__ __forceinline__ float key_of(const float* logits, const float* bias, long long j) {
  const float v = logits[j] + (bias ? bias[j] : 0.0f);
  return v == v ? v : -INFINITY;
}

__global__ void __launch_bounds__(512)
    select_rows(const float* logits, const float* bias, long long rows, long long v, long long k, long long also,
                float* values, int32_t* indices, float* lse_out, float* also_out) {
  __shared__ float smem[cuda::kWarpSize];
  __shared__ float smem_key[cuda::kWarpSize];
  __shared__ int smem_index[cuda::kWarpSize];
  const int lane = threadIdx.x % cuda::kWarpSize, warp = threadIdx.x / cuda::kWarpSize;
  const int warps = (blockDim.x + cuda::kWarpSize - 1) / cuda::kWarpSize;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* z = logits + r * v;
    float mx = -INFINITY;
    for (long long j = threadIdx.x; j < v; j += blockDim.x) mx = cuda::MaxOp::apply(mx, z[j]);
    mx = cuda::block_reduce<cuda::MaxOp>(mx, smem);
    float s = 0.0f;
    if (mx != -INFINITY)
      for (long long j = threadIdx.x; j < v; j += blockDim.x) s += expf(z[j] - mx);
    s = cuda::block_reduce<cuda::SumOp>(s, smem);
    const float lse = mx == -INFINITY ? -INFINITY : mx + logf(s);
    if (threadIdx.x == 0) {
      lse_out[r] = lse;
      if (also_out) also_out[r] = z[also] - lse;
    }
    Entry prev{0.0f, -1};
    for (long long round = 0; round < k; ++round) {
      Entry best{0.0f, -1};
      for (long long j = threadIdx.x; j < v; j += blockDim.x) {
        const Entry e{key_of(z, bias, j), static_cast<int>(j)};
        if ((prev.index < 0 || better(prev, e)) && better(e, best)) best = e;
      }
      best = warp_best(best);
      __syncthreads();  // the previous round's readers are done with smem
      if (lane == 0) {
        smem_key[warp] = best.key;
        smem_index[warp] = best.index;
      }
      __syncthreads();
      best = lane < warps ? Entry{smem_key[lane], smem_index[lane]} : Entry{0.0f, -1};
      prev = warp_best(best);
      if (threadIdx.x == 0) {
        indices[r * k + round] = prev.index;
        values[r * k + round] = prev.key - lse;
      }
    }
  }
}

void linear_topk_cuda(const Tensor& h, const OutputWeight& w, const Tensor& token_bias, const LinearTopkOptions& o,
                      LinearTopkResult& out) {
  REALMT_CHECK(!w.quantized.defined(), "linear_log_softmax_topk: int8 tables run on the CPU only");
  const int64_t n = h.dim(0), v = w.vocab();
  REALMT_CHECK(v <= INT_MAX, "linear_log_softmax_topk: a vocabulary of {} exceeds the i32 index range", v);
  Tensor logits = matmul(h, w.weight, {.trans_b = true});  // [N, V]
  if (w.bias.defined()) logits = add(logits, w.bias.reshape({1, v}));
  const int device = h.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long rounded = (v + cuda::kWarpSize - 1) / cuda::kWarpSize * cuda::kWarpSize;
  const int block = static_cast<int>(rounded < 512 ? rounded : 512);
  const unsigned grid = static_cast<unsigned>(n < (1LL << 20) ? n : (1LL << 20));
  select_rows<<<grid, block, 0, stream>>>(
      cuda::device_ptr<float>(logits), token_bias.defined() ? cuda::device_ptr<float>(token_bias) : nullptr, n, v,
      o.k, o.also_token, cuda::device_ptr<float>(out.values), cuda::device_ptr<int32_t>(out.indices),
      cuda::device_ptr<float>(out.lse), out.also.defined() ? cuda::device_ptr<float>(out.also) : nullptr);
  REALMT_CUDA_CHECK_LAUNCH();
}

}  // namespace

REALMT_REGISTER_KERNEL(linear_log_softmax_topk_kernel, kCuda, linear_topk_cuda);

}  // namespace realmt::ops
