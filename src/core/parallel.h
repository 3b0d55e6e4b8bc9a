// Threading for CPU kernels (OpenMP). Kernels split their outer loop with parallel_for and
// leave small problems on one thread, where thread start-up would cost more than the work.
#pragma once

#include <algorithm>
#include <cstdint>

namespace realmt {

// Threads used by CPU kernels and BLAS (the `cpu-threads` option); defaults to all cores.
void set_num_threads(int n);
int num_threads();

// Calls fn(begin, end) on disjoint chunks covering [0, n). `cost` is the work per index in
// rough element-operations; chunks are formed so each thread gets at least ~32k of them.
template <typename Fn>
void parallel_for(int64_t n, int64_t cost, Fn&& fn) {
  if (n <= 0) return;
  const int64_t work = n * std::max<int64_t>(cost, 1);
  const int threads = num_threads();
  if (threads <= 1 || work < (int64_t(1) << 15)) {
    fn(int64_t(0), n);
    return;
  }
  const int64_t chunks = std::min<int64_t>(threads, std::max<int64_t>(1, work >> 15));
#pragma omp parallel for num_threads(static_cast <int>(chunks)) schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
    if (begin < end) fn(begin, end);
  }
}

}  // namespace realmt
