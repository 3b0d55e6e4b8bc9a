// A fixed set of threads running tasks in the order they were submitted (the HTTP front's
// handlers of slow requests).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace realmt::server {

class WorkerPool {
 public:
  WorkerPool() = default;
  ~WorkerPool() { stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void start(int threads);
  // The task must not throw.
  void submit(std::function<void()> task);
  // Tasks not yet started are dropped; waits for the running ones. The pool can start again.
  void stop();

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace realmt::server
