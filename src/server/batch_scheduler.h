// One queue for every request's sentences and one decoding thread that forms batches across
// requests (ARCHITECTURE.md, How data flows).
//
//   BatchScheduler s(decode_fn, options, &registry);
//   Ticket t = s.submit(sources, search_options, deadline);   // throws HttpError 429 / 503
//   RequestResult r = t.wait();                               // 200, 504 (deadline) or 500
//
// Batching. The decoding thread takes the oldest queued sentence and, from the oldest
// 4 x max_batch_sentences queued sentences with the same search options (beam and n-best differ
// between requests; one beam search runs one set of options), those closest to it in length,
// while the batch stays within max_batch_sentences and max_batch_tokens (sentences x (longest
// source + eos): padding counted, as realmt-translate's mini-batch-words). The oldest sentence
// is always in the next batch, so no sentence waits behind more than the window. A batch that is
// not full waits for more sentences until its oldest one has waited max_wait_ms; while a batch
// decodes, arriving sentences queue and the next batch is formed as soon as it ends, so decoding
// never pauses while work is queued.
//
// Limits. submit refuses with 429 when the queue would exceed max_queue_sentences or
// max_queue_tokens (memory stays bounded under overload), and with 503 after drain(). A request
// whose deadline passes gets 504; its queued sentences are dropped, never decoded.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "search/search_options.h"

namespace realmt::server {

class Registry;
class Counter;
class Histogram;

using Clock = std::chrono::steady_clock;

// Decodes one batch of subword ids (no eos) with one set of options: the hypotheses of each
// source in order (Translator::translate, or a fake in tests). Called from one thread only.
using DecodeFn = std::function<std::vector<std::vector<search::Hypothesis>>(
    const std::vector<std::vector<int32_t>>&, const search::SearchOptions&)>;

struct SchedulerOptions {
  int64_t max_batch_sentences = 32;    // sentences a batch at most
  int64_t max_batch_tokens = 4096;     // sentences x (longest source + eos) a batch (0: no limit)
  int64_t max_wait_ms = 5;             // how long a batch that is not full waits for more
  int64_t max_queue_sentences = 4096;  // queued sentences at most (429 beyond)
  int64_t max_queue_tokens = 262144;   // queued source tokens (eos included) at most (429 beyond)
  void validate() const;
};

struct RequestResult {
  int status = 200;   // 200, 504 (deadline passed) or 500 (decoding failed)
  std::string error;  // why, when status != 200
  std::vector<std::vector<search::Hypothesis>> hypotheses;  // per source, in order (200 only)
};

namespace detail {
struct Job;
}

// A submitted request. wait() blocks until every sentence is decoded or the deadline passes
// (then the request is abandoned and its queued sentences are dropped).
class Ticket {
 public:
  explicit Ticket(std::shared_ptr<detail::Job> job) : job_(std::move(job)) {}
  RequestResult wait();

 private:
  std::shared_ptr<detail::Job> job_;
};

class BatchScheduler {
 public:
  // metrics: where batch, queue and decode figures go (may be null); it must not be rendered
  // after the scheduler is destroyed (its queue gauges read the scheduler).
  BatchScheduler(DecodeFn decode, SchedulerOptions options, Registry* metrics = nullptr);
  ~BatchScheduler();  // drains: finishes the queue, then joins the decoding thread
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  // Queues the sources of one request (every one with `options`). Throws HttpError 429 when the
  // queue is full, 503 when draining. An empty request completes at once.
  Ticket submit(std::vector<std::vector<int32_t>> sources, const search::SearchOptions& options,
                Clock::time_point deadline);

  // Refuses new work from now on; what is queued is still decoded.
  void drain();
  // Blocks until nothing is queued or decoding, or `timeout` passes; true when idle.
  bool wait_idle(std::chrono::milliseconds timeout);

  int64_t queued_sentences() const { return queued_sentences_.load(); }
  int64_t queued_tokens() const { return queued_tokens_.load(); }

 private:
  struct Item {
    std::shared_ptr<detail::Job> job;
    size_t index;    // which source of the job
    int64_t tokens;  // source length + eos
  };
  void run();
  // Drops items whose request is finished, abandoned or past its deadline (lock held).
  void purge(Clock::time_point now);
  // Takes the next batch from the queue, or returns empty when it should wait (lock held).
  std::vector<Item> take_batch(Clock::time_point now, Clock::time_point* wake);
  void decode(std::vector<Item>& batch);

  DecodeFn decode_;
  SchedulerOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable work_cv_;  // new items, drain, stop
  std::condition_variable idle_cv_;  // queue emptied and no batch in flight
  std::deque<Item> queue_;
  bool in_flight_ = false;
  bool draining_ = false;
  bool stopping_ = false;
  std::atomic<int64_t> queued_sentences_{0}, queued_tokens_{0};

  Counter* batches_ = nullptr;
  Counter* decoded_ = nullptr;
  Counter* expired_ = nullptr;
  Counter* decode_seconds_ = nullptr;
  Histogram* batch_sentences_ = nullptr;
  Histogram* batch_requests_ = nullptr;
  std::thread thread_;  // last: starts after everything above is set
};

}  // namespace realmt::server
