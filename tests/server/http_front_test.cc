// The server's HTTP/1.1 front through raw sockets: framing refusals (411, 400, 413 while a
// chunked body is still coming), 100-continue, keep-alive and pipelining, HEAD, read deadlines
// against trickling clients, connection caps per client and in total, and /health staying fast
// while 200 slow clients hold connections.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <thread>

#include "server/raw_client.h"
#include "server/served.h"

namespace realmt::server {
namespace {

using test::RawClient;
using test::RawResponse;
using test::Served;
using test::small_limits;

const std::string kHealth = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n";

std::string post(const std::string& body, const std::string& extra = "") {
  return "POST /v1/translate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" + extra +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string kChunkedHead =
    "POST /v1/translate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
    "Transfer-Encoding: chunked\r\n\r\n";

std::string chunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

HttpConfig short_deadlines() {
  HttpConfig c = small_limits();
  c.idle_timeout_ms = 300;
  c.header_timeout_ms = 400;
  c.body_timeout_ms = 400;
  c.write_timeout_ms = 2000;
  return c;
}

// Polls until the server holds `n` connections (the front accepts asynchronously).
bool wait_open(Served& s, int n) {
  for (int i = 0; i < 1000 && s.server().open_connections() != n; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return s.server().open_connections() == n;
}

double metric(Served& s, const std::string& line_start) {
  RawClient c(s.port());
  c.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n");
  const std::string text = c.read_response().body;
  const size_t at = text.find("\n" + line_start + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + line_start.size() + 2));
}

TEST(HttpFront, PostWithoutLengthIs411) {
  Served s(small_limits());
  RawClient c(s.port());
  ASSERT_TRUE(
      c.send("POST /v1/translate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json"
             "\r\n\r\n{\"text\": [\"a\"]}"));
  RawResponse r = c.read_response(5000);
  EXPECT_EQ(r.status, 411);
  EXPECT_NE(r.body.find("Content-Length"), std::string::npos) << r.body;
  EXPECT_EQ(r.headers["connection"], "close");
  EXPECT_TRUE(c.closed_within(5000));
}

TEST(HttpFront, MalformedContentLengthIs400AtOnce) {
  Served s(small_limits());
  for (const char* length : {"-1", "abc", "12x", "+5", "", "1, 2"}) {
    RawClient c(s.port());
    ASSERT_TRUE(
        c.send("POST /v1/translate HTTP/1.1\r\nHost: t\r\nContent-Type: "
               "application/json\r\nContent-Length: " +
               std::string(length) + "\r\n\r\n"));
    // Nothing more is sent: the answer must not wait for a body.
    RawResponse r = c.read_response(3000);
    EXPECT_EQ(r.status, 400) << length;
    EXPECT_NE(r.body.find("Content-Length"), std::string::npos) << r.body;
  }
}

TEST(HttpFront, ChunkedBodyOverTheLimitIs413WhileItIsStillComing) {
  Served s(small_limits());  // 2000 bytes a body
  RawClient c(s.port());
  ASSERT_TRUE(c.send(kChunkedHead));
  // 5 x 500 bytes and no last chunk: the body never ends, the answer must come anyway.
  for (int i = 0; i < 5 && c.send(chunk(std::string(500, ' '))); ++i) {
  }
  RawResponse r = c.read_response(5000);
  EXPECT_EQ(r.status, 413);
  EXPECT_NE(r.body.find("2000"), std::string::npos) << r.body;
  EXPECT_TRUE(c.closed_within(5000));
  EXPECT_EQ(metric(s, "realmt_requests_total{code=\"413\"}"), 1);
}

TEST(HttpFront, ChunkedBodyWithinTheLimitIsTranslated) {
  Served s(small_limits());
  RawClient c(s.port());
  ASSERT_TRUE(c.send(kChunkedHead + chunk(R"({"text": )") + chunk(R"(["abc", )") +
                     chunk(R"("de"]})") + "0\r\n\r\n"));
  RawResponse r = c.read_response(5000);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"translations":["cba","ed"]})");
}

TEST(HttpFront, ExpectContinue) {
  Served s(small_limits());
  const std::string body = R"({"text": ["ab"]})";
  const std::string request = post(body, "Expect: 100-continue\r\n");
  RawClient c(s.port());
  ASSERT_TRUE(c.send(request.substr(0, request.size() - body.size())));
  EXPECT_EQ(c.read_response(5000).status, 100);
  ASSERT_TRUE(c.send(body));
  RawResponse r = c.read_response(5000);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"translations":["ba"]})");
  // A body over the limit gets the final answer instead of 100 Continue.
  RawClient big(s.port());
  ASSERT_TRUE(
      big.send("POST /v1/translate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json"
               "\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n"));
  EXPECT_EQ(big.read_response(5000).status, 413);
}

TEST(HttpFront, KeepAlivePipeliningAndHead) {
  Served s(small_limits());
  RawClient c(s.port());
  ASSERT_TRUE(c.send(kHealth + post(R"({"text": ["abc"]})") +
                     "HEAD /health HTTP/1.1\r\nHost: t\r\n\r\n" + post(R"({"text": ["xy"]})") +
                     "GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  RawResponse a = c.read_response(5000);
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, R"({"status":"ok"})");
  EXPECT_EQ(a.headers["connection"], "keep-alive");
  EXPECT_EQ(c.read_response(5000).body, R"({"translations":["cba"]})");
  RawResponse head = c.read_response(5000, /*head=*/true);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers["content-length"], "15");  // GET's length, no body sent
  EXPECT_EQ(c.read_response(5000).body, R"({"translations":["yx"]})");
  RawResponse last = c.read_response(5000);
  EXPECT_EQ(last.status, 200);
  EXPECT_EQ(last.headers["connection"], "close");
  EXPECT_TRUE(c.closed_within(5000));
}

TEST(HttpFront, TricklingHeaderIsCutByTheHeaderDeadline) {
  Served s(short_deadlines());
  RawClient c(s.port());
  // One byte every 50 ms (never a pause a per-read timeout would catch): 408 after 400 ms.
  const std::string slow = "GET /health HTTP/1.1\r\nX-Slow: " + std::string(100, 'a');
  RawResponse r;
  for (char byte : slow) {
    if (!c.send(std::string(1, byte)) || c.readable(50)) break;
  }
  r = c.read_response(1000);
  EXPECT_EQ(r.status, 408);
  EXPECT_NE(r.body.find("did not arrive within 400 ms"), std::string::npos) << r.body;
  EXPECT_TRUE(c.closed_within(3000));
}

TEST(HttpFront, TricklingBodyIsCutByTheBodyDeadline) {
  Served s(short_deadlines());
  RawClient c(s.port());
  const std::string body = R"({"text": [")" + std::string(60, 'a') + R"("]})";
  const std::string request = post(body);
  ASSERT_TRUE(c.send(request.substr(0, request.size() - body.size())));
  for (char byte : body) {
    if (!c.send(std::string(1, byte)) || c.readable(50)) break;
  }
  RawResponse r = c.read_response(1000);
  EXPECT_EQ(r.status, 408);
  EXPECT_NE(r.body.find("body"), std::string::npos) << r.body;
}

TEST(HttpFront, IdleConnectionsAreClosed) {
  Served s(short_deadlines());
  RawClient quiet(s.port());  // never sends
  EXPECT_TRUE(quiet.closed_within(5000));
  RawClient kept(s.port());
  ASSERT_TRUE(kept.send(kHealth));
  EXPECT_EQ(kept.read_response(5000).status, 200);
  EXPECT_TRUE(kept.closed_within(5000));  // kept alive, then idle too long
  EXPECT_TRUE(wait_open(s, 0));
}

TEST(HttpFront, ConnectionsPerClientAreCapped) {
  HttpConfig cfg = small_limits();
  cfg.max_connections_per_client = 3;
  Served s(cfg);
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<RawClient>(s.port(), "127.0.0.5"));
  ASSERT_TRUE(wait_open(s, 3));
  RawClient extra(s.port(), "127.0.0.5");  // refused at accept, before any request
  RawResponse r = extra.read_response(5000);
  EXPECT_EQ(r.status, 429);
  EXPECT_NE(r.body.find("127.0.0.5"), std::string::npos) << r.body;
  EXPECT_TRUE(extra.closed_within(5000));
  RawClient other(s.port(), "127.0.0.6");  // another client is not affected
  ASSERT_TRUE(other.send(kHealth));
  EXPECT_EQ(other.read_response(5000).status, 200);
  held[0]->close();
  ASSERT_TRUE(wait_open(s, 3));  // two held and `other`
  RawClient again(s.port(), "127.0.0.5");
  ASSERT_TRUE(again.send(kHealth));
  EXPECT_EQ(again.read_response(5000).status, 200);
  EXPECT_EQ(metric(s, "realmt_http_connections_refused_total{cap=\"per_client\"}"), 1);
}

TEST(HttpFront, ConnectionsAreCappedInTotal) {
  HttpConfig cfg = small_limits();
  cfg.max_connections = 4;
  Served s(cfg);
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 4; ++i)
    held.push_back(std::make_unique<RawClient>(s.port(), "127.0.0." + std::to_string(10 + i)));
  ASSERT_TRUE(wait_open(s, 4));
  RawClient extra(s.port(), "127.0.0.20");
  EXPECT_EQ(extra.read_response(5000).status, 503);
  held.clear();
  ASSERT_TRUE(wait_open(s, 0));
  RawClient later(s.port(), "127.0.0.20");
  ASSERT_TRUE(later.send(kHealth));
  EXPECT_EQ(later.read_response(5000).status, 200);
}

TEST(HttpFront, SlowUploadsDoNotHoldTheTranslationThreads) {
  Served s(small_limits(), /*threads=*/1);
  const std::string body = R"({"text": ["slow"]})";
  const std::string request = post(body);
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 3; ++i) {  // bodies started, not finished
    slow.push_back(std::make_unique<RawClient>(s.port()));
    ASSERT_TRUE(slow.back()->send(request.substr(0, request.size() - body.size() + 3)));
  }
  RawClient fast(s.port());
  ASSERT_TRUE(fast.send(post(R"({"text": ["fast"]})")));
  RawResponse r = fast.read_response(5000);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"translations":["tsaf"]})");
  for (auto& c : slow) {
    ASSERT_TRUE(c->send(body.substr(3)));
    EXPECT_EQ(c->read_response(5000).body, R"({"translations":["wols"]})");
  }
}

// Issue 16, item 5 in small (the 1,000-connection version is regression/server, label full):
// 200 clients each send one byte every 250 ms of a request that never ends; /health must keep
// answering within 100 ms and the trickling connections must be cut by the header deadline.
TEST(HttpFront, HealthStaysFastWhile200ClientsTrickle) {
  HttpConfig cfg = small_limits();
  cfg.idle_timeout_ms = 1500;
  cfg.header_timeout_ms = 1500;
  Served s(cfg);
  constexpr int kSlow = 200;
  std::atomic<bool> stop{false};
  std::atomic<int> cut{0};  // 408s the trickling clients got
  std::thread driver([&] {
    const std::string slow =
        "POST /v1/translate HTTP/1.1\r\nHost: t\r\nX-Slow: " + std::string(100000, 'a');
    std::vector<std::unique_ptr<RawClient>> conns(kSlow);
    std::vector<size_t> sent(kSlow, 0);
    while (!stop) {
      for (int i = 0; i < kSlow; ++i) {
        if (!conns[i]) {
          conns[i] = std::make_unique<RawClient>(s.port(), "127.0.1." + std::to_string(1 + i));
          sent[i] = 0;
        }
        if (conns[i]->readable(0)) {  // an answer, or the end: a new connection next round
          if (conns[i]->read_response(100).status == 408) ++cut;
          conns[i].reset();
        } else if (!conns[i]->send(slow.substr(sent[i]++, 1))) {
          conns[i].reset();
        }
      }
      for (int t = 0; t < 25 && !stop; ++t)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  for (int i = 0; i < 1000 && s.server().open_connections() < kSlow; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GE(s.server().open_connections(), kSlow);
  std::vector<double> ms;
  for (int i = 0; i < 30; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    RawClient h(s.port());
    ASSERT_TRUE(h.send("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
    const RawResponse r = h.read_response(5000);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_EQ(r.status, 200) << "probe " << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  RawClient t(s.port());
  ASSERT_TRUE(t.send(post(R"({"text": ["ok"]})")));
  EXPECT_EQ(t.read_response(5000).body, R"({"translations":["ko"]})");
  stop = true;
  driver.join();
  std::sort(ms.begin(), ms.end());
  const double p90 = ms[ms.size() * 9 / 10];
  std::printf(
      "/health with %d trickling clients: median %.2f ms, p90 %.2f ms, max %.2f ms; "
      "%d connections cut by the header deadline\n",
      kSlow, ms[ms.size() / 2], p90, ms.back(), cut.load());
  // The issue's bound; the 90th percentile so that one scheduling hiccup of a shared machine
  // does not decide it (the old front never answered at all).
  EXPECT_LT(p90, 100.0);
  EXPECT_GT(cut.load(), 0);
}

}  // namespace
}  // namespace realmt::server
