// CPU output layer with selection: the vocabulary in chunks. Per chunk one GEMM (BLAS for f32,
// oneDNN's u8 x s8 for int8 with h quantized once) writes the logits of every row into a
// cache-sized buffer; then, rows over threads, each row folds the chunk into its running
// log-sum-exp (max and sum rescaled when the max grows: sum exp(x - max) stays in range) and
// offers the chunk's entries to its k-entry heap (top = the worst kept entry; entries arrive in
// ascending v, so a newcomer equal to the top is worse; blocks whose maximum does not beat the
// top are skipped after one vectorised max, as in topk_cpu.cc). With an int8 table and its f32
// values both given, the heaps keep 2k entries and rescore_row makes their logits exact.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/cpu/blas.h"
#include "backend/cpu/int8_gemm.h"
#include "core/fast_math.h"
#include "core/parallel.h"
#include "ops/linear_log_softmax_topk.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

constexpr int64_t kBlock = 32;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct Entry {
  float v;
  int32_t i;
};

// a ranks above b: larger value, then lower position.
bool better(const Entry& a, const Entry& b) { return a.v > b.v || (a.v == b.v && a.i < b.i); }

// Running state of one row.
struct RowState {
  float max = kNegInf, sum = 0.0f, also = kNegInf;
  int64_t count = 0;  // heap entries
};

// sum_j exp(x[j] - mx), vectorised (kept out of fold_chunk: inlined there, GCC falls back to a
// scalar loop for the simd reduction).
[[gnu::noinline]] float exp_sum(const float* x, int64_t n, float mx) {
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; ++j) s += fast_exp(x[j] - mx);
  return s;
}

void fold_chunk(float* logits, int64_t v0, int64_t vc, const float* bias,
                const LinearTopkOptions& o, RowState& st, Entry* heap) {
  // Log-sum-exp (fast_exp gives exactly 0 for -inf).
  float cmax = kNegInf;
#pragma omp simd reduction(max : cmax)
  for (int64_t j = 0; j < vc; ++j) cmax = std::max(cmax, logits[j]);
  if (cmax > st.max) {
    st.sum = st.max == kNegInf ? 0.0f : st.sum * fast_exp(st.max - cmax);
    st.max = cmax;
  }
  if (st.max != kNegInf) st.sum += exp_sum(logits, vc, st.max);
  if (o.also_token >= v0 && o.also_token < v0 + vc) st.also = logits[o.also_token - v0];
    // Selection keys in place (the logits are not needed after this): logit + bias, NaN as -inf.
#pragma omp simd
  for (int64_t j = 0; j < vc; ++j) {
    const float key = logits[j] + (bias ? bias[v0 + j] : 0.0f);
    logits[j] = key == key ? key : kNegInf;
  }
  const int64_t k = o.k;
  auto offer = [&](int64_t j) {
    const Entry e{logits[j], static_cast<int32_t>(v0 + j)};
    if (st.count < k) {
      heap[st.count++] = e;
      std::push_heap(heap, heap + st.count, better);
      return;
    }
    if (!(e.v > heap[0].v)) return;
    std::pop_heap(heap, heap + k, better);
    heap[k - 1] = e;
    std::push_heap(heap, heap + k, better);
  };
  int64_t j = 0;
  for (; j < vc && st.count < k; ++j) offer(j);
  for (; j < vc && j % kBlock != 0; ++j) offer(j);
  for (; j + kBlock <= vc; j += kBlock) {
    float bmax = kNegInf;
#pragma omp simd reduction(max : bmax)
    for (int64_t t = 0; t < kBlock; ++t) bmax = std::max(bmax, logits[j + t]);
    if (!(bmax > heap[0].v)) continue;
    for (int64_t t = 0; t < kBlock; ++t) offer(j + t);
  }
  for (; j < vc; ++j) offer(j);
}

// An f32 dot product of D entries.
float dot(const float* a, const float* b, int64_t d) {
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < d; ++j) s += a[j] * b[j];
  return s;
}

// The int8 logits of a row's `count` heap entries (and of the also token) replaced by exact f32
// ones, h_row . table[v]: the log-sum-exp trades each candidate's int8 term for the exact one
// (sum' = sum - exp(z8 - max) + exp(z - max), with the fast_exp that made the sum, so the int8
// terms cancel), and the entries are ranked again by the exact keys. The candidates outside the
// final k absorb int8 ranking errors near the k-th place. Entries with a -inf bias (never
// chosen) and NaN logits keep their int8 terms.
void rescore_row(const float* h_row, const float* table, int64_t d, const float* out_bias,
                 const float* bias, const LinearTopkOptions& o, RowState& st, Entry* heap) {
  float sum = st.sum;
  for (int64_t j = 0; j < st.count; ++j) {
    Entry& e = heap[j];
    const float b = bias ? bias[e.i] : 0.0f;
    if (!std::isfinite(e.v) || !std::isfinite(b)) continue;
    const float z8 = e.v - b;
    const float z =
        dot(h_row, table + static_cast<int64_t>(e.i) * d, d) + (out_bias ? out_bias[e.i] : 0.0f);
    sum += fast_exp(z - st.max) - fast_exp(z8 - st.max);
    e.v = z + b;
  }
  // The sum held every int8 term, so it stays at least the exact terms' share (> 0); the floor
  // only guards rounding.
  st.sum = std::max(sum, std::numeric_limits<float>::min());
  if (o.also_token >= 0 && std::isfinite(st.also))
    st.also = dot(h_row, table + o.also_token * d, d) + (out_bias ? out_bias[o.also_token] : 0.0f);
}

void linear_topk_cpu(const Tensor& h, const OutputWeight& w, const Tensor& token_bias,
                     const LinearTopkOptions& o, LinearTopkResult& out) {
  const int64_t n = h.dim(0), d = w.dim(), vocab = w.vocab(), k = o.k;
  const bool quantized = w.quantized.defined();
  const bool rescore = quantized && w.weight.defined();
  LinearTopkOptions heap_o = o;  // 2k candidates when they are rescored
  if (rescore) heap_o.k = std::min(vocab, 2 * k);
  const int64_t kh = heap_o.k;
  // ~2 MB of logits per chunk (L2/L3-resident while the rows fold it), at least 512 entries
  // so that each GEMM stays efficient.
  const int64_t chunk = std::min(
      vocab, o.chunk > 0 ? o.chunk
                         : std::clamp<int64_t>(
                               (int64_t(1) << 19) / std::max<int64_t>(n, 1) / 64 * 64, 512, 8192));
  Tensor buf = Tensor::empty({n, chunk}, DType::kF32, h.device());
  Tensor qh, rows, acc;  // rows: h's steps, then its zero points (int8_gemm.h)
  if (quantized) {
    qh = Tensor::empty({n, d}, DType::kU8, h.device());
    rows = Tensor::empty({2, n}, DType::kF32, h.device());
    acc = Tensor::empty({n, chunk}, DType::kI32, h.device());
    cpu::quantize_activations(n, d, h.data<float>(), d, qh.data<uint8_t>(), d, rows.data<float>(),
                              rows.data<float>() + n);
  }
  std::vector<RowState> state(n);
  std::vector<Entry> heaps(n * kh);
  const float* bias = token_bias.defined() ? token_bias.data<float>() : nullptr;
  const float* out_bias = w.bias.defined() ? w.bias.data<float>() : nullptr;
  float* logits = buf.data<float>();
  for (int64_t v0 = 0; v0 < vocab; v0 += chunk) {
    const int64_t vc = std::min(chunk, vocab - v0);
    if (quantized) {
      const QuantizedWeight& q = w.quantized;
      cpu::gemm_u8s8s32(n, vc, d, qh.data<uint8_t>(), d, q.values.data<int8_t>() + v0 * d, d,
                        acc.data<int32_t>(), vc);
      cpu::dequantize_products(n, vc, acc.data<int32_t>(), vc, rows.data<float>(),
                               rows.data<float>() + n, q.inv_scales.data<float>() + v0,
                               q.sums.data<int32_t>() + v0, logits, vc);
    } else {
      cpu::gemm(false, true, n, vc, d, 1.0f, h.data<float>(), d, w.weight.data<float>() + v0 * d, d,
                0.0f, logits, vc);
    }
    parallel_for(n, 8 * vc, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        float* row = logits + r * vc;
        if (out_bias) {
#pragma omp simd
          for (int64_t j = 0; j < vc; ++j) row[j] += out_bias[v0 + j];
        }
        fold_chunk(row, v0, vc, bias, heap_o, state[r], heaps.data() + r * kh);
      }
    });
  }
  float* values = out.values.data<float>();
  int32_t* indices = out.indices.data<int32_t>();
  float* lse = out.lse.data<float>();
  float* also = out.also.defined() ? out.also.data<float>() : nullptr;
  if (rescore) {
    parallel_for(n, 2 * kh * d, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r)
        if (state[r].max != kNegInf)
          rescore_row(h.data<float>() + r * d, w.weight.data<float>(), d, out_bias, bias, o,
                      state[r], heaps.data() + r * kh);
    });
  }
  for (int64_t r = 0; r < n; ++r) {
    const RowState& st = state[r];
    lse[r] = st.max == kNegInf ? kNegInf : st.max + std::log(st.sum);
    Entry* heap = heaps.data() + r * kh;
    std::sort(heap, heap + st.count, better);
    for (int64_t j = 0; j < k; ++j) {
      values[r * k + j] = heap[j].v - lse[r];
      indices[r * k + j] = heap[j].i;
    }
    if (also) also[r] = st.also - lse[r];
  }
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(linear_log_softmax_topk_kernel, kCpu, linear_topk_cpu);

}  // namespace realmt::ops
