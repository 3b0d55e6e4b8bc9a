#include "core/parallel.h"

#include <omp.h>

#include <atomic>
#include <thread>

#include "core/error.h"

namespace realmt {

namespace {
std::atomic<int> g_threads{0};
}

void set_num_threads(int n) {
  REALMT_CHECK(n >= 1 && n <= 4096, "cpu-threads must be at least 1, got {}", n);
  g_threads = n;
  omp_set_num_threads(n);
}

int num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = omp_get_max_threads();
    g_threads = n;
  }
  return n;
}

}  // namespace realmt
