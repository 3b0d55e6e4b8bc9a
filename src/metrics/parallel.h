// Splits [0, n) into contiguous chunks run on up to `threads` std::threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace realmt::metrics {

// fn(begin, end, worker) is called once per chunk; the first exception is rethrown.
template <typename Fn>
void parallel_for(size_t n, int threads, Fn&& fn) {
  const size_t workers =
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), n / 64 + 1));
  if (workers == 1) {
    fn(size_t{0}, n, 0);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(workers);
  const size_t chunk = (n + workers - 1) / workers;
  for (size_t w = 0; w < workers; ++w) {
    const size_t begin = std::min(n, w * chunk), end = std::min(n, begin + chunk);
    pool.emplace_back([&, w, begin, end] {
      try {
        fn(begin, end, static_cast<int>(w));
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (auto& t : pool) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace realmt::metrics
