#include "server/metrics.h"

#include <gtest/gtest.h>

#include <thread>

namespace realmt::server {
namespace {

TEST(Metrics, RendersPrometheusText) {
  Registry r;
  r.counter("x_requests_total", "Requests", "code", "200").add(3);
  r.counter("x_requests_total", "Requests", "code", "429").add();
  r.counter("x_requests_total", "Requests", "code", "200").add(2);  // the same counter again
  double depth = 7;
  r.gauge("x_queue", "Queue depth", [&] { return depth; });
  Histogram& h = r.histogram("x_seconds", "Latency", {0.5, 1});
  h.observe(0.25);
  h.observe(0.5);  // "le": a value on a bound counts in that bucket
  h.observe(0.75);
  h.observe(3);
  const std::string text = r.render();
  EXPECT_EQ(text,
            "# HELP x_queue Queue depth\n# TYPE x_queue gauge\nx_queue 7\n"
            "# HELP x_requests_total Requests\n# TYPE x_requests_total counter\n"
            "x_requests_total{code=\"200\"} 5\nx_requests_total{code=\"429\"} 1\n"
            "# HELP x_seconds Latency\n# TYPE x_seconds histogram\n"
            "x_seconds_bucket{le=\"0.5\"} 2\nx_seconds_bucket{le=\"1\"} 3\n"
            "x_seconds_bucket{le=\"+Inf\"} 4\nx_seconds_sum 4.5\n"
            "x_seconds_count 4\n");
  depth = 0;
  EXPECT_NE(r.render().find("x_queue 0\n"), std::string::npos);
}

TEST(Metrics, CountersAreThreadSafe) {
  Registry r;
  Counter& c = r.counter("n_total", "n");
  Histogram& h = r.histogram("h", "h", {1});
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.add(1);
        h.observe(0.5);
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(c.value(), 40000);
  EXPECT_EQ(h.snapshot().count, 40000u);
  EXPECT_EQ(h.snapshot().cumulative[0], 40000u);
}

TEST(Metrics, ValueSpelling) {
  EXPECT_EQ(format_metric_value(12), "12");
  EXPECT_EQ(format_metric_value(0.25), "0.25");
  EXPECT_EQ(format_metric_value(0.1), "0.1");
  EXPECT_EQ(format_metric_value(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(format_metric_value(1.0 / 0.0), "+Inf");
}

}  // namespace
}  // namespace realmt::server
