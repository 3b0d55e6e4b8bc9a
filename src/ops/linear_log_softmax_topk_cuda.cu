// CUDA output layer with selection: the logits [N, V] by cuBLAS (ops::matmul, the GPU has the
// memory for them) or, for an int8 table, by ops::quantized_matmul (the CPU's int8 logits bit for
// bit: quantize_cuda.cu); plus the output bias by ops::add. Then a block per row: the log-sum-exp
// by two block reductions, the "also" column, and k selection rounds as in topk_cuda.cu (round r
// takes the best entry ranked below round r-1's winner, entries ordered by key desc then index
// asc; key = logit + bias, NaN as -inf).
// An int8 table with its f32 values (select_rescored, the CPU's rescore_row): 2k rounds pick the
// candidates by int8 key into a scratch [N, 2k]; a warp per candidate computes its exact logit
// h . W[v] (+ output bias) and the lse's sum trades the int8 term for the exact one (candidates
// with a non-finite key or bias keep theirs; the also token's logit is made exact too); then k
// rounds over the candidates by exact key.
#include <algorithm>
#include <cfloat>
#include <climits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/linear_log_softmax_topk.h"
#include "ops/elementwise.h"
#include "ops/matmul.h"
#include "ops/quantize.h"

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
    const Entry o{__shfl_xor_sync(0xffffffffu, e.key, offset),
                  __shfl_xor_sync(0xffffffffu, e.index, offset)};
    if (better(o, e)) e = o;
  }
  return e;
}

__device__ __forceinline__ float key_of(const float* logits, const float* bias, long long j) {
  const float v = logits[j] + (bias ? bias[j] : 0.0f);
  return v == v ? v : -INFINITY;
}

// The best of the block's entries, to every thread; smem_key and smem_index hold a warp's worth.
__device__ __forceinline__ Entry block_best(Entry e, float* smem_key, int* smem_index) {
  const int lane = threadIdx.x % cuda::kWarpSize, warp = threadIdx.x / cuda::kWarpSize;
  const int warps = (blockDim.x + cuda::kWarpSize - 1) / cuda::kWarpSize;
  e = warp_best(e);
  __syncthreads();  // the previous call's readers are done with smem
  if (lane == 0) {
    smem_key[warp] = e.key;
    smem_index[warp] = e.index;
  }
  __syncthreads();
  e = lane < warps ? Entry{smem_key[lane], smem_index[lane]} : Entry{0.0f, -1};
  return warp_best(e);
}

// The row's maximum logit and sum_j exp(z[j] - max) (0 when the maximum is -inf), to every thread.
__device__ __forceinline__ void max_and_sum(const float* z, long long v, float* smem, float& mx,
                                            float& s) {
  mx = -INFINITY;
  for (long long j = threadIdx.x; j < v; j += blockDim.x) mx = cuda::MaxOp::apply(mx, z[j]);
  mx = cuda::block_reduce<cuda::MaxOp>(mx, smem);
  s = 0.0f;
  if (mx != -INFINITY)
    for (long long j = threadIdx.x; j < v; j += blockDim.x) s += expf(z[j] - mx);
  s = cuda::block_reduce<cuda::SumOp>(s, smem);
}

// k selection rounds over `count` entries entry(j); thread 0 hands round r's winner to out(r, e).
template <typename EntryAt, typename Out>
__device__ void select_rounds(long long count, long long k, EntryAt entry, Out out, float* smem_key,
                              int* smem_index) {
  Entry prev{0.0f, -1};
  for (long long round = 0; round < k; ++round) {
    Entry best{0.0f, -1};
    for (long long j = threadIdx.x; j < count; j += blockDim.x) {
      const Entry e = entry(j);
      if ((prev.index < 0 || better(prev, e)) && better(e, best)) best = e;
    }
    prev = block_best(best, smem_key, smem_index);
    if (threadIdx.x == 0) out(round, prev);
  }
}

__global__ void __launch_bounds__(512)
    select_rows(const float* logits, const float* bias, long long rows, long long v, long long k,
                long long also, float* values, int32_t* indices, float* lse_out, float* also_out) {
  __shared__ float smem[cuda::kWarpSize];
  __shared__ float smem_key[cuda::kWarpSize];
  __shared__ int smem_index[cuda::kWarpSize];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* z = logits + r * v;
    float mx, s;
    max_and_sum(z, v, smem, mx, s);
    const float lse = mx == -INFINITY ? -INFINITY : mx + logf(s);
    if (threadIdx.x == 0) {
      lse_out[r] = lse;
      if (also_out) also_out[r] = z[also] - lse;
    }
    select_rounds(
        v, k,
        [&](long long j) {
          return Entry{key_of(z, bias, j), static_cast<int>(j)};
        },
        [&](long long round, const Entry& e) {
          indices[r * k + round] = e.index;
          values[r * k + round] = e.key - lse;
        },
        smem_key, smem_index);
  }
}

// The exact logit h_row . table[index] (+ the output bias) by one warp, to every lane.
__device__ __forceinline__ float exact_logit(const float* h_row, const float* table,
                                             const float* out_bias, long long d, long long index) {
  const float* w = table + index * d;
  float s = 0.0f;
  for (long long j = threadIdx.x % cuda::kWarpSize; j < d; j += cuda::kWarpSize)
    s += h_row[j] * w[j];
  s = cuda::warp_reduce<cuda::SumOp>(s);
  return s + (out_bias ? out_bias[index] : 0.0f);
}

// The candidates (ci, ck: index and int8 key) made exact, a warp per candidate: a finite key with
// a finite bias b becomes z + b for the exact logit z. Returns this thread's share of the change
// in the lse's sum, exp(z - mx) - exp(z8 - mx) for the int8 logit z8 = key - b (rescore_row).
__device__ float rescore_candidates(const float* h_row, const float* table, const float* out_bias,
                                    const float* bias, long long d, long long kh, float mx,
                                    const int32_t* ci, float* ck) {
  const int lane = threadIdx.x % cuda::kWarpSize, warp = threadIdx.x / cuda::kWarpSize;
  const int warps = (blockDim.x + cuda::kWarpSize - 1) / cuda::kWarpSize;
  float delta = 0.0f;
  for (long long c = warp; c < kh; c += warps) {
    const int index = ci[c];
    const float key8 = ck[c], b = bias ? bias[index] : 0.0f;
    if (!isfinite(key8) || !isfinite(b)) continue;  // the same c for the whole warp
    const float z = exact_logit(h_row, table, out_bias, d, index);
    if (lane == 0) {
      delta += expf(z - mx) - expf((key8 - b) - mx);
      ck[c] = z + b;
    }
  }
  return delta;
}

// An int8 table with its f32 values: the row's best kh entries by int8 key into the scratch
// (ci, ck) [rows, kh], rescored, then the best k of them by exact key.
__global__ void __launch_bounds__(512)
    select_rescored(const float* logits, const float* bias, const float* h, const float* table,
                    const float* out_bias, long long rows, long long v, long long d, long long k,
                    long long kh, long long also, int32_t* cand_index, float* cand_key,
                    float* values, int32_t* indices, float* lse_out, float* also_out) {
  __shared__ float smem[cuda::kWarpSize];
  __shared__ float smem_key[cuda::kWarpSize];
  __shared__ int smem_index[cuda::kWarpSize];
  __shared__ float also_exact;
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* z = logits + r * v;
    const float* h_row = h + r * d;
    int32_t* ci = cand_index + r * kh;
    float* ck = cand_key + r * kh;
    float mx, s;
    max_and_sum(z, v, smem, mx, s);
    select_rounds(
        v, kh,
        [&](long long j) {
          return Entry{key_of(z, bias, j), static_cast<int>(j)};
        },
        [&](long long round, const Entry& e) {
          ci[round] = e.index;
          ck[round] = e.key;
        },
        smem_key, smem_index);
    __syncthreads();  // thread 0's candidates, to the block
    // No rescoring when every logit is -inf (the CPU's rescore_row is skipped then too).
    const bool exact_also = mx != -INFINITY && also >= 0 && isfinite(z[also]);
    float delta = 0.0f;
    if (mx != -INFINITY)
      delta = rescore_candidates(h_row, table, out_bias, bias, d, kh, mx, ci, ck);
    if (exact_also && threadIdx.x < cuda::kWarpSize) {
      const float e = exact_logit(h_row, table, out_bias, d, also);
      if (threadIdx.x == 0) also_exact = e;
    }
    // The reduction's barriers also publish the exact keys and also_exact to the block.
    delta = cuda::block_reduce<cuda::SumOp>(delta, smem);
    const float lse = mx == -INFINITY ? -INFINITY : mx + logf(fmaxf(s + delta, FLT_MIN));
    if (threadIdx.x == 0) {
      lse_out[r] = lse;
      if (also_out) also_out[r] = (exact_also ? also_exact : z[also]) - lse;
    }
    select_rounds(
        kh, k,
        [&](long long c) {
          return Entry{ck[c], ci[c]};
        },
        [&](long long round, const Entry& e) {
          indices[r * k + round] = e.index;
          values[r * k + round] = e.key - lse;
        },
        smem_key, smem_index);
  }
}

void linear_topk_cuda(const Tensor& h, const OutputWeight& w, const Tensor& token_bias,
                      const LinearTopkOptions& o, LinearTopkResult& out) {
  const int64_t n = h.dim(0), v = w.vocab(), d = w.dim();
  REALMT_CHECK(v <= INT_MAX,
               "linear_log_softmax_topk: a vocabulary of {} exceeds the i32 index range", v);
  const bool quantized = w.quantized.defined();
  Tensor logits = quantized ? quantized_matmul(h, w.quantized)
                            : matmul(h, w.weight, {.trans_b = true});  // [N, V]
  if (w.bias.defined()) logits = add(logits, w.bias.reshape({1, v}));
  const int device = h.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const long long rounded = (v + cuda::kWarpSize - 1) / cuda::kWarpSize * cuda::kWarpSize;
  const int block = static_cast<int>(rounded < 512 ? rounded : 512);
  const unsigned grid = static_cast<unsigned>(n < (1LL << 20) ? n : (1LL << 20));
  const float* bias = token_bias.defined() ? cuda::device_ptr<float>(token_bias) : nullptr;
  float* also = out.also.defined() ? cuda::device_ptr<float>(out.also) : nullptr;
  if (quantized && w.weight.defined()) {
    const int64_t kh = std::min(v, 2 * o.k);  // the candidates rescored, as the CPU's heaps
    Tensor cand_index = Tensor::empty({n, kh}, DType::kI32, h.device());
    Tensor cand_key = Tensor::empty({n, kh}, DType::kF32, h.device());
    select_rescored<<<grid, block, 0, stream>>>(
        cuda::device_ptr<float>(logits), bias, cuda::device_ptr<float>(h),
        cuda::device_ptr<float>(w.weight),
        w.bias.defined() ? cuda::device_ptr<float>(w.bias) : nullptr, n, v, d, o.k, kh,
        o.also_token, cuda::device_ptr<int32_t>(cand_index), cuda::device_ptr<float>(cand_key),
        cuda::device_ptr<float>(out.values), cuda::device_ptr<int32_t>(out.indices),
        cuda::device_ptr<float>(out.lse), also);
  } else {
    select_rows<<<grid, block, 0, stream>>>(cuda::device_ptr<float>(logits), bias, n, v, o.k,
                                            o.also_token, cuda::device_ptr<float>(out.values),
                                            cuda::device_ptr<int32_t>(out.indices),
                                            cuda::device_ptr<float>(out.lse), also);
  }
  REALMT_CUDA_CHECK_LAUNCH();
}

}  // namespace

REALMT_REGISTER_KERNEL(linear_log_softmax_topk_kernel, kCuda, linear_topk_cuda);

}  // namespace realmt::ops
