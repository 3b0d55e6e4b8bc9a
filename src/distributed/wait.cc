#include "distributed/wait.h"

#include <chrono>
#include <thread>

#include "core/error.h"

namespace realmt::distributed {

bool wait_until(const std::function<bool()>& poll, double timeout_s) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(timeout_s));
  const auto spin_until = start + std::chrono::microseconds(100);
  auto pause = std::chrono::microseconds(10);
  while (true) {
    if (poll()) return true;
    const auto now = clock::now();
    if (now >= deadline) return poll();
    if (now < spin_until) continue;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

std::string timeout_message(int rank, int size, const std::string& what, double timeout_s) {
  return format(
      "rank {} of {}: {} did not complete within {} s (comm-timeout): another rank has died, "
      "hangs, or is far "
      "behind (rank 0 validating or writing a checkpoint counts; raise comm-timeout above the "
      "longest of those). "
      "Stopping the job; checkpoints are written atomically, so the last one saved is intact",
      rank, size, what, timeout_s);
}

}  // namespace realmt::distributed
