#include "server/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/error.h"

namespace realmt::server {

void Counter::add(double v) {
  // C++20 atomic<double>::fetch_add; counters only go up.
  REALMT_ASSERT(v >= 0, "counters only increase");
  value_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Histogram(std::vector<double> upper_bounds) : bounds_(std::move(upper_bounds)) {
  REALMT_ASSERT(std::is_sorted(bounds_.begin(), bounds_.end()), "histogram bounds must be sorted");
  counts_.assign(bounds_.size() + 1, 0);
}

void Histogram::observe(double v) {
  // Prometheus buckets are "less than or equal": v lands in the first bound >= v.
  const size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_[i];
  sum_ += v;
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t run = 0;
  for (uint64_t c : counts_) s.cumulative.push_back(run += c);
  s.sum = sum_;
  s.count = run;
  return s;
}

Registry::Family& Registry::family(const std::string& name, const std::string& help,
                                   const char* type) {
  auto [it, inserted] = families_.try_emplace(name);
  if (inserted) {
    it->second.help = help;
    it->second.type = type;
  }
  REALMT_ASSERT(it->second.type == type, "metric {} registered as {} and {}", name, it->second.type,
                type);
  return it->second;
}

Counter& Registry::counter(const std::string& name, const std::string& help,
                           const std::string& label_name, const std::string& label_value) {
  std::lock_guard<std::mutex> lock(mutex_);
  Family& f = family(name, help, "counter");
  if (f.counters.empty()) f.label_name = label_name;
  REALMT_ASSERT(f.label_name == label_name, "counter {} has label {}, asked for {}", name,
                f.label_name, label_name);
  auto& c = f.counters[label_value];
  if (!c) c = std::make_unique<Counter>();
  return *c;
}

void Registry::gauge(const std::string& name, const std::string& help,
                     std::function<double()> read) {
  std::lock_guard<std::mutex> lock(mutex_);
  family(name, help, "gauge").gauge = std::move(read);
}

Histogram& Registry::histogram(const std::string& name, const std::string& help,
                               std::vector<double> upper_bounds) {
  std::lock_guard<std::mutex> lock(mutex_);
  Family& f = family(name, help, "histogram");
  if (!f.histogram) f.histogram = std::make_unique<Histogram>(std::move(upper_bounds));
  return *f.histogram;
}

std::string format_metric_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else {
    // The shortest of 15 or 17 digits that reads back as v ("0.1", not "0.10000000000000001").
    std::snprintf(buf, sizeof buf, "%.15g", v);
    if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
  }
  return buf;
}

std::string Registry::render() const {
  std::ostringstream os;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [name, f] : families_) {
    os << "# HELP " << name << ' ' << f.help << "\n# TYPE " << name << ' ' << f.type << '\n';
    if (f.type == "counter") {
      for (const auto& [label, c] : f.counters) {
        os << name;
        if (!f.label_name.empty()) os << '{' << f.label_name << "=\"" << label << "\"}";
        os << ' ' << format_metric_value(c->value()) << '\n';
      }
    } else if (f.type == "gauge") {
      os << name << ' ' << format_metric_value(f.gauge ? f.gauge() : 0.0) << '\n';
    } else {
      const Histogram::Snapshot s = f.histogram->snapshot();
      const auto& b = f.histogram->bounds();
      for (size_t i = 0; i <= b.size(); ++i)
        os << name << "_bucket{le=\""
           << (i < b.size() ? format_metric_value(b[i]) : std::string("+Inf")) << "\"} "
           << s.cumulative[i] << '\n';
      os << name << "_sum " << format_metric_value(s.sum) << '\n';
      os << name << "_count " << s.count << '\n';
    }
  }
  return os.str();
}

}  // namespace realmt::server
