// A small metrics registry rendered in the Prometheus text exposition format (version 0.0.4):
// counters (optionally with one label), gauges read by a callback at render time, and
// histograms with fixed upper bounds.
//
//   Registry r;
//   Counter& req = r.counter("realmt_requests_total", "Requests answered", "code", "200");
//   Histogram& lat = r.histogram("realmt_request_seconds", "Latency", {0.01, 0.1, 1});
//   req.add(1); lat.observe(0.02); std::string text = r.render();
//
// Metrics live as long as the registry; the references it hands out stay valid. Updates are
// thread-safe and lock-free for counters; histograms take a short lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace realmt::server {

class Counter {
 public:
  void add(double v = 1.0);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);  // sorted, +Inf implied
  void observe(double v);
  // Cumulative counts per bound (+Inf last), the sum and the count, read together.
  struct Snapshot {
    std::vector<uint64_t> cumulative;
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot snapshot() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  mutable std::mutex mutex_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative; +Inf last
  double sum_ = 0;
};

class Registry {
 public:
  // The counter `name`{label_name="label_value"} (no label when label_name is empty). Asking
  // again for the same name and label returns the same counter; help is kept from the first.
  Counter& counter(const std::string& name, const std::string& help,
                   const std::string& label_name = "", const std::string& label_value = "");
  void gauge(const std::string& name, const std::string& help, std::function<double()> read);
  Histogram& histogram(const std::string& name, const std::string& help,
                       std::vector<double> upper_bounds);
  std::string render() const;

 private:
  struct Family {
    std::string help, type, label_name;
    std::map<std::string, std::unique_ptr<Counter>> counters;  // by label value
    std::function<double()> gauge;
    std::unique_ptr<Histogram> histogram;
  };
  Family& family(const std::string& name, const std::string& help, const char* type);
  mutable std::mutex mutex_;
  std::map<std::string, Family> families_;  // rendered in name order
};

// Prometheus' number spelling: integers without a fraction, +Inf/-Inf/NaN by name.
std::string format_metric_value(double v);

}  // namespace realmt::server
