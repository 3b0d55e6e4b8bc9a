#include "server/batch_scheduler.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "core/error.h"
#include "server/metrics.h"
#include "server/request.h"
#include "search/translator.h"

namespace realmt::server {

namespace detail {

struct Job {
  std::vector<std::vector<int32_t>> sources;  // read only by the decoding thread after submit
  search::SearchOptions options;
  Clock::time_point enqueued, deadline;
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::vector<search::Hypothesis>> results;
  size_t remaining = 0;
  int status = 200;
  std::string error;
  // Set once the answer is decided (all decoded, failed or abandoned): the scheduler then drops
  // the job's queued sentences. Read without the job's lock by the scheduler.
  std::atomic<bool> finished{false};
};

}  // namespace detail

namespace {

// Whether two requests can share one beam search.
void finish(detail::Job& job, int status, const std::string& error) {
  std::lock_guard<std::mutex> lock(job.mutex);
  if (job.finished) return;
  job.status = status;
  job.error = error;
  job.finished = true;
  job.cv.notify_all();
}

}  // namespace

void SchedulerOptions::validate() const {
  REALMT_CHECK(max_batch_sentences >= 1, "mini-batch must be at least 1, got {}",
               max_batch_sentences);
  REALMT_CHECK(max_batch_tokens >= 0, "max-batch-tokens must be >= 0, got {}", max_batch_tokens);
  REALMT_CHECK(max_wait_ms >= 0, "max-wait-ms must be >= 0, got {}", max_wait_ms);
  REALMT_CHECK(max_queue_sentences >= 1 && max_queue_tokens >= 1,
               "max-queue-sentences and max-queue-tokens must be at least 1");
}

RequestResult Ticket::wait() {
  detail::Job& job = *job_;
  std::unique_lock<std::mutex> lock(job.mutex);
  job.cv.wait_until(lock, job.deadline, [&] { return job.finished.load(); });
  if (!job.finished) {  // deadline: abandon, so the scheduler drops what is still queued
    job.status = 504;
    job.error = "deadline exceeded before the translation was finished";
    job.finished = true;
  }
  RequestResult r;
  r.status = job.status;
  r.error = job.error;
  if (r.status == 200) r.hypotheses = std::move(job.results);
  return r;
}

BatchScheduler::BatchScheduler(DecodeFn decode, SchedulerOptions options, Registry* metrics)
    : decode_(std::move(decode)), options_(options) {
  options_.validate();
  if (metrics) {
    batches_ = &metrics->counter("realmt_batches_total", "Batches decoded");
    decoded_ = &metrics->counter("realmt_decoded_sentences_total", "Sentences decoded");
    expired_ =
        &metrics->counter("realmt_expired_sentences_total",
                          "Queued sentences dropped because their request's deadline passed");
    decode_seconds_ =
        &metrics->counter("realmt_decode_seconds_total", "Time the decoding thread spent decoding");
    batch_sentences_ = &metrics->histogram("realmt_batch_sentences", "Sentences per batch",
                                           {1, 2, 4, 8, 16, 32, 64, 128, 256});
    batch_requests_ = &metrics->histogram("realmt_batch_requests",
                                          "Distinct requests per batch (cross-request batching)",
                                          {1, 2, 4, 8, 16, 32, 64});
    metrics->gauge("realmt_queue_sentences", "Sentences waiting in the queue",
                   [this] { return static_cast<double>(queued_sentences_.load()); });
    metrics->gauge("realmt_queue_tokens", "Source tokens waiting in the queue",
                   [this] { return static_cast<double>(queued_tokens_.load()); });
  }
  thread_ = std::thread([this] { run(); });
}

BatchScheduler::~BatchScheduler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    draining_ = stopping_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

Ticket BatchScheduler::submit(std::vector<std::vector<int32_t>> sources,
                              const search::SearchOptions& options, Clock::time_point deadline) {
  auto job = std::make_shared<detail::Job>();
  job->options = options;
  job->enqueued = Clock::now();
  job->deadline = deadline;
  job->results.resize(sources.size());
  job->remaining = sources.size();
  int64_t tokens = 0;
  for (const auto& s : sources) tokens += static_cast<int64_t>(s.size()) + 1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (draining_) throw HttpError(503, "the server is shutting down; retry on another instance");
    const int64_t n = static_cast<int64_t>(sources.size());
    if (queued_sentences_ + n > options_.max_queue_sentences ||
        queued_tokens_ + tokens > options_.max_queue_tokens)
      throw HttpError(429, format("the queue is full ({} sentences, {} tokens queued); retry later",
                                  queued_sentences_.load(), queued_tokens_.load()));
    if (sources.empty()) {
      job->finished = true;
      return Ticket(job);
    }
    for (size_t i = 0; i < sources.size(); ++i)
      queue_.push_back({job, i, static_cast<int64_t>(sources[i].size()) + 1});
    job->sources = std::move(sources);
    queued_sentences_ += n;
    queued_tokens_ += tokens;
  }
  work_cv_.notify_one();
  return Ticket(job);
}

void BatchScheduler::drain() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    draining_ = true;
  }
  work_cv_.notify_all();
}

bool BatchScheduler::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_cv_.wait_for(lock, timeout, [&] { return queue_.empty() && !in_flight_; });
}

void BatchScheduler::purge(Clock::time_point now) {
  std::deque<Item> kept;
  for (Item& it : queue_) {
    if (!it.job->finished && now >= it.job->deadline) {
      finish(*it.job, 504, "deadline exceeded while queued");
    }
    if (it.job->finished) {
      if (expired_ && it.job->status == 504) expired_->add(1);
      queued_sentences_ -= 1;
      queued_tokens_ -= it.tokens;
      continue;
    }
    kept.push_back(std::move(it));
  }
  queue_.swap(kept);
}

std::vector<BatchScheduler::Item> BatchScheduler::take_batch(Clock::time_point now,
                                                             Clock::time_point* wake) {
  const detail::Job& head = *queue_.front().job;
  const int64_t head_tokens = queue_.front().tokens;
  // The window: the oldest compatible sentences, a few batches' worth. From it the batch takes
  // the oldest sentence and those closest to it in length (older first among equals), as
  // realmt-translate sorts a maxi-batch by length: a batch of similar lengths decodes in fewer
  // steps and pads less.
  std::vector<size_t> window;
  const size_t window_size = static_cast<size_t>(4 * options_.max_batch_sentences);
  for (size_t i = 0; i < queue_.size() && window.size() < window_size; ++i)
    if (i == 0 || queue_[i].job->options == head.options) window.push_back(i);
  std::stable_sort(window.begin(), window.end(), [&](size_t a, size_t b) {
    return std::abs(queue_[a].tokens - head_tokens) < std::abs(queue_[b].tokens - head_tokens);
  });
  std::vector<size_t> picked;
  int64_t longest = 0;
  bool full = false;
  for (size_t i : window) {
    const int64_t n = static_cast<int64_t>(picked.size());
    const int64_t len = std::max(longest, queue_[i].tokens);
    if (n >= options_.max_batch_sentences ||
        (n > 0 && options_.max_batch_tokens > 0 && (n + 1) * len > options_.max_batch_tokens)) {
      full = true;
      break;
    }
    picked.push_back(i);
    longest = len;
  }
  std::sort(picked.begin(), picked.end());  // the batch in arrival order
  full = full || static_cast<int64_t>(picked.size()) >= options_.max_batch_sentences;
  const Clock::time_point due = head.enqueued + std::chrono::milliseconds(options_.max_wait_ms);
  if (!full && !draining_ && now < due) {
    *wake = std::min(due, head.deadline);
    return {};
  }
  std::vector<Item> batch;
  batch.reserve(picked.size());
  for (size_t i : picked) batch.push_back(std::move(queue_[i]));
  // Remove the picked items (their slots are now empty pointers), keeping the others' order.
  std::deque<Item> rest;
  for (Item& it : queue_)
    if (it.job) rest.push_back(std::move(it));
  queue_.swap(rest);
  for (const Item& it : batch) {
    queued_sentences_ -= 1;
    queued_tokens_ -= it.tokens;
  }
  return batch;
}

void BatchScheduler::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (queue_.empty()) {
      idle_cv_.notify_all();
      if (stopping_) return;
      work_cv_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      continue;
    }
    const Clock::time_point now = Clock::now();
    purge(now);
    if (queue_.empty()) continue;
    Clock::time_point wake;
    std::vector<Item> batch = take_batch(now, &wake);
    if (batch.empty()) {
      // Wake for the wait limit, a deadline, new items (they may fill the batch) or drain.
      work_cv_.wait_until(lock, wake);
      continue;
    }
    in_flight_ = true;
    lock.unlock();
    decode(batch);
    batch.clear();  // release the jobs outside the lock
    lock.lock();
    in_flight_ = false;
  }
}

void BatchScheduler::decode(std::vector<Item>& batch) {
  std::vector<std::vector<int32_t>> sources;
  sources.reserve(batch.size());
  for (const Item& it : batch) sources.push_back(it.job->sources[it.index]);
  const search::SearchOptions& options = batch.front().job->options;
  const auto t0 = Clock::now();
  std::vector<std::vector<search::Hypothesis>> hyps;
  try {
    hyps = decode_(sources, options);
    REALMT_ASSERT(hyps.size() == sources.size(), "decoder returned {} results for {} sources",
                  hyps.size(), sources.size());
  } catch (const std::exception& e) {
    for (const Item& it : batch) finish(*it.job, 500, format("decoding failed: {}", e.what()));
    return;
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  // Metrics first: a client that has its answer sees its batch counted.
  if (batches_) {
    std::set<const detail::Job*> jobs;
    for (const Item& it : batch) jobs.insert(it.job.get());
    batches_->add(1);
    decoded_->add(static_cast<double>(batch.size()));
    decode_seconds_->add(secs);
    batch_sentences_->observe(static_cast<double>(batch.size()));
    batch_requests_->observe(static_cast<double>(jobs.size()));
  }
  for (size_t j = 0; j < batch.size(); ++j) {
    detail::Job& job = *batch[j].job;
    if (hyps[j].empty()) {  // no finite-scoring hypothesis: an error for its request, never ""
      finish(job, 500, format("text[{}]: {}", batch[j].index, search::kNoFiniteTranslation));
      continue;
    }
    std::lock_guard<std::mutex> lock(job.mutex);
    if (job.finished) continue;  // abandoned at its deadline while decoding
    job.results[batch[j].index] = std::move(hyps[j]);
    if (--job.remaining == 0) {
      job.finished = true;
      job.cv.notify_all();
    }
  }
}

}  // namespace realmt::server
