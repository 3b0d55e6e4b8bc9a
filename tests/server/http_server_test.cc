// The HTTP front in process, on a loopback port chosen by the kernel, with a fake codec
// (letter -> id) and the fake decoder (a translation is the source reversed).
#include "server/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "server/fake_decoder.h"

namespace realmt::server {
namespace {

TextCodec letters() {
  return {[](const std::string& s) {
            std::vector<int32_t> ids;
            for (char c : s) ids.push_back(static_cast<int32_t>(c));
            return ids;
          },
          [](const std::vector<int32_t>& ids) {
            std::string s;
            for (int32_t i : ids) s.push_back(static_cast<char>(i));
            return s;
          }};
}

class Served {
 public:
  explicit Served(HttpConfig c) : server_(adjust(std::move(c)), letters(), fake_.fn()) {
    port_ = server_.bind();
    thread_ = std::thread([this] { server_.serve(); });
  }
  ~Served() {
    server_.shutdown(std::chrono::milliseconds(10000));
    thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(20, 0);
    return c;
  }
  HttpServer& server() { return server_; }

 private:
  static HttpConfig adjust(HttpConfig c) {
    c.port = 0;
    c.threads = 8;
    return c;
  }
  test::FakeDecoder fake_;
  HttpServer server_;
  int port_ = 0;
  std::thread thread_;
};

HttpConfig small_limits() {
  HttpConfig c;
  c.max_body_bytes = 2000;
  c.limits.max_sentences = 4;
  c.limits.max_sentence_bytes = 100;
  c.limits.max_sentence_tokens = 20;
  c.limits.max_beam_size = 4;
  c.limits.max_n_best = 4;
  c.scheduler.max_wait_ms = 1;
  return c;
}

int post(httplib::Client& c, const std::string& body, std::string* out = nullptr,
         const httplib::Headers& headers = {}) {
  auto r = c.Post("/v1/translate", headers, body, "application/json");
  if (!r) return -1;
  if (out) *out = r->body;
  return r->status;
}

TEST(HttpServer, TranslatesInOrder) {
  Served s(small_limits());
  auto c = s.client();
  std::string body;
  ASSERT_EQ(post(c, R"({"text": ["abc", "", "xy"]})", &body), 200);
  EXPECT_EQ(body, R"({"translations":["cba","","yx"]})");
  ASSERT_EQ(post(c, R"({"text": ["ab"], "beam_size": 2, "n_best": 2})", &body), 200);
  EXPECT_NE(body.find(R"("n_best":[[{"score":-2.0,"text":"ba"},{"score":-3.0,"text":"ba"}]])"),
            std::string::npos)
      << body;
  auto h = c.Get("/health");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
}

TEST(HttpServer, EveryMalformedClassGetsItsStatusAndServingGoesOn) {
  Served s(small_limits());
  auto c = s.client();
  const std::vector<std::pair<std::string, int>> cases = {
      {R"({"text": ["a")", 400},                       // malformed JSON
       {R"("text")", 400},                             // not an object
       {R"({})", 400},                                 // text missing
       {R"({"text": "abc"})", 400},                    // text not an array
       {R"({"text": [1]})", 400},                      // entry not a string
       {R"({"text": ["a"], "beam_size": "2"})", 400},  // option of the wrong type
       {R"({"text": ["a"], "beam_size": 5})", 400},    // option over the server's limit
       {R"({"text": ["a"], "n_best": 3, "beam_size": 2})", 400},  // n_best above the beam
       {R"({"text": ["a"], "bogus": 1})", 400},                   // unknown field
       {R"({"text": ["a", "b", "c", "d", "e"]})", 413},           // too many sentences
       {R"({"text": [")" + std::string(101, 'a') + R"("]})", 413},  // sentence bytes
       {R"({"text": [")" + std::string(21, 'a') + R"("]})", 413},   // sentence subwords
       {R"({"text": [")" + std::string(3000, 'a') + R"("]})", 413}, // body bytes
  };
  for (const auto& [body, status] : cases) {
    std::string answer;
    EXPECT_EQ(post(c, body, &answer), status) << body.substr(0, 60);
    EXPECT_NE(answer.find("\"error\""), std::string::npos) << answer;
    std::string ok;
    ASSERT_EQ(post(c, R"({"text": ["ok"]})", &ok), 200) << "after " << body.substr(0, 60);
    EXPECT_EQ(ok, R"({"translations":["ko"]})");
  }
  auto m = c.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_NE(m->body.find("realmt_requests_total{code=\"400\"} 9\n"), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("realmt_requests_total{code=\"413\"} 4\n"), std::string::npos);
  EXPECT_NE(m->body.find("realmt_requests_total{code=\"200\"} 13\n"), std::string::npos);
  EXPECT_NE(m->body.find("# TYPE realmt_request_seconds histogram"), std::string::npos);
  EXPECT_EQ(c.Get("/v2/nothing")->status, 404);
}

TEST(HttpServer, BearerTokenGuardsTranslateAndMetrics) {
  HttpConfig cfg = small_limits();
  cfg.api_key = "k3y";
  Served s(cfg);
  auto c = s.client();
  EXPECT_EQ(post(c, R"({"text": ["a"]})"), 401);
  EXPECT_EQ(post(c, R"({"text": ["a"]})", nullptr, {{"Authorization", "Bearer k3z"}}), 401);
  EXPECT_EQ(post(c, R"({"text": ["a"]})", nullptr, {{"Authorization", "Bearer k3y"}}), 200);
  EXPECT_EQ(c.Get("/metrics")->status, 401);
  EXPECT_EQ(c.Get("/metrics", {{"Authorization", "Bearer k3y"}})->status, 200);
  EXPECT_EQ(c.Get("/health")->status, 200);  // for load balancers, no secret needed
}

TEST(HttpServer, DrainingRefusesNewRequests) {
  Served s(small_limits());
  auto c = s.client();
  EXPECT_EQ(post(c, R"({"text": ["a"]})"), 200);
  s.server().begin_drain();
  auto c2 = s.client();
  std::string body;
  EXPECT_EQ(post(c2, R"({"text": ["a"]})", &body), 503);
  EXPECT_NE(body.find("shutting down"), std::string::npos);
  EXPECT_EQ(c2.Get("/health")->status, 503);
}

}  // namespace
}  // namespace realmt::server
