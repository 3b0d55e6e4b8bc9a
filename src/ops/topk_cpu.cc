// CPU top-k: one pass per row with a k-entry heap whose top is the worst kept entry. Entries
// arrive in ascending position, so a newcomer equal to the top is worse (it has the higher
// position) and only v > top enters; blocks of kBlock entries whose maximum does not beat
// the top are skipped after one vectorised max, which is almost every block once the heap
// holds good entries. Rows are split over threads; when there are fewer rows than threads
// (beam search on a few sentences: [B, K*V]) each row is also split into chunks whose own
// top-k candidates are merged afterwards.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "ops/topk.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

constexpr int64_t kBlock = 32;
constexpr int64_t kMinChunk = 8192;  // entries; smaller chunks do not repay the merge

template <typename C>
struct Entry {
  C v;
  int32_t i;
};

// a ranks above b: larger value, then lower position.
template <typename C>
bool better(const Entry<C>& a, const Entry<C>& b) {
  return a.v > b.v || (a.v == b.v && a.i < b.i);
}

// The compare value of an element: C is f64 for f64 and f32 otherwise; NaN ranks as -inf.
template <typename C, typename T>
C key(T x) {
  const C v = scalar_cast<C>(x);
  return v == v ? v : -std::numeric_limits<C>::infinity();
}

// The top min(k, end - begin) entries of x[begin, end), in no particular order.
template <typename T, typename C>
int64_t select_range(const T* x, int64_t begin, int64_t end, int64_t k, Entry<C>* heap) {
  const int64_t m = std::min(k, end - begin);
  for (int64_t j = 0; j < m; ++j) heap[j] = {key<C>(x[begin + j]), static_cast<int32_t>(begin + j)};
  std::make_heap(heap, heap + m, better<C>);  // worst entry at heap[0]
  auto offer = [&](int64_t j) {
    const C v = key<C>(x[j]);
    if (!(v > heap[0].v)) return;
    std::pop_heap(heap, heap + m, better<C>);
    heap[m - 1] = {v, static_cast<int32_t>(j)};
    std::push_heap(heap, heap + m, better<C>);
  };
  int64_t j = begin + m;
  for (; j < end && (j - begin) % kBlock != 0; ++j) offer(j);
  for (; j + kBlock <= end; j += kBlock) {
    C mx = -std::numeric_limits<C>::infinity();
#pragma omp simd reduction(max : mx)
    for (int64_t t = 0; t < kBlock; ++t) {
      const C v = key<C>(x[j + t]);
      mx = v > mx ? v : mx;
    }
    if (!(mx > heap[0].v)) continue;
    for (int64_t t = 0; t < kBlock; ++t) offer(j + t);
  }
  for (; j < end; ++j) offer(j);
  return m;
}

template <typename T>
void topk_rows(const Tensor& x, const TopkPlan& p, Tensor& values, Tensor& indices) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const T* px = x.data<T>();
  T* pv = values.defined() ? values.data<T>() : nullptr;
  int32_t* pi = indices.data<int32_t>();
  const int64_t k = p.k, n = p.n;
  int64_t chunks = 1;
  if (p.rows < num_threads()) {
    const int64_t want = (num_threads() + p.rows - 1) / p.rows;
    chunks = std::clamp<int64_t>(n / std::max(kMinChunk, 4 * k), 1, want);
  }
  const int64_t chunk_len = (n + chunks - 1) / chunks;
  // Candidates of chunk c of row r at cand[(r * chunks + c) * k], count in counts[...].
  std::vector<Entry<C>> cand(static_cast<size_t>(p.rows * chunks * k));
  std::vector<int64_t> counts(static_cast<size_t>(p.rows * chunks));
  parallel_for(p.rows * chunks, chunk_len, [&](int64_t lo, int64_t hi) {
    for (int64_t u = lo; u < hi; ++u) {
      const int64_t r = u / chunks, c = u % chunks;
      const int64_t b = std::min(n, c * chunk_len), e = std::min(n, b + chunk_len);
      counts[u] = select_range<T, C>(px + r * n, b, e, k, cand.data() + u * k);
    }
  });
  parallel_for(p.rows, chunks * k * 4, [&](int64_t lo, int64_t hi) {
    std::vector<Entry<C>> merged;
    for (int64_t r = lo; r < hi; ++r) {
      merged.clear();
      for (int64_t c = 0; c < chunks; ++c) {
        const Entry<C>* src = cand.data() + (r * chunks + c) * k;
        merged.insert(merged.end(), src, src + counts[r * chunks + c]);
      }
      std::partial_sort(merged.begin(), merged.begin() + k, merged.end(), better<C>);
      for (int64_t j = 0; j < k; ++j) {
        pi[r * k + j] = merged[j].i;
        if (pv) pv[r * k + j] = px[r * n + merged[j].i];  // the stored value, NaN included
      }
    }
  });
}

void topk_cpu(const Tensor& x, const TopkPlan& p, Tensor& values, Tensor& indices) {
  switch (x.dtype()) {
    case DType::kF32: return topk_rows<float>(x, p, values, indices);
    case DType::kF64: return topk_rows<double>(x, p, values, indices);
    case DType::kF16: return topk_rows<Half>(x, p, values, indices);
    case DType::kBF16: return topk_rows<BFloat16>(x, p, values, indices);
    default: throw_unsupported_dtype("topk", x.dtype());
  }
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(topk_kernel, kCpu, topk_cpu);

}  // namespace realmt::ops
