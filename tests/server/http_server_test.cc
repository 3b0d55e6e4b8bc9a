// The HTTP service in process through an ordinary HTTP client (cpp-httplib's): routes, JSON
// answers, authentication, drain (tests/server/served.h).
#include "server/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include "server/served.h"

namespace realmt::server {
namespace {

using test::Served;
using test::small_limits;

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

TEST(HttpServer, TargetLanguagePutsItsTagBeforeEveryNonBlankText) {
  Served s(small_limits());
  auto c = s.client();
  std::string body;
  ASSERT_EQ(post(c, R"({"text": ["abc", "", "xy"], "target_language": "fra"})", &body), 200);
  EXPECT_EQ(body, R"({"translations":["cba <<arf>>","","yx <<arf>>"]})");  // the source reversed
  ASSERT_EQ(post(c, R"({"text": ["abc"], "target_language": "deu"})", &body), 400);
  EXPECT_NE(body.find("target_language: no tag >>deu<<; it has >>fra<< >>spa<<"), std::string::npos)
      << body;
}

TEST(HttpServer, EveryMalformedClassGetsItsStatusAndServingGoesOn) {
  Served s(small_limits());
  auto c = s.client();
  const std::vector<std::pair<std::string, int>> cases = {
      {R"({"text": ["a")", 400},                                   // malformed JSON
      {R"("text")", 400},                                          // not an object
      {R"({})", 400},                                              // text missing
      {R"({"text": "abc"})", 400},                                 // text not an array
      {R"({"text": [1]})", 400},                                   // entry not a string
      {R"({"text": ["a"], "beam_size": "2"})", 400},               // option of the wrong type
      {R"({"text": ["a"], "beam_size": 5})", 400},                 // option over the server's limit
      {R"({"text": ["a"], "n_best": 3, "beam_size": 2})", 400},    // n_best above the beam
      {R"({"text": ["a"], "bogus": 1})", 400},                     // unknown field
      {R"({"text": ["a", "b", "c", "d", "e"]})", 413},             // too many sentences
      {R"({"text": [")" + std::string(101, 'a') + R"("]})", 413},  // sentence bytes
      {R"({"text": [")" + std::string(21, 'a') + R"("]})", 413},   // sentence subwords
      {R"({"text": [")" + std::string(3000, 'a') + R"("]})", 413},  // body bytes
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

TEST(HttpServer, WrongMethodIs405WithAllow) {
  Served s(small_limits());
  auto c = s.client();
  auto g = c.Get("/v1/translate");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->status, 405);
  EXPECT_EQ(g->get_header_value("Allow"), "POST");
  EXPECT_NE(g->body.find("\"error\""), std::string::npos) << g->body;
  auto p = c.Post("/health", "{}", "application/json");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 405);
  EXPECT_EQ(p->get_header_value("Allow"), "GET, HEAD");
  auto d = c.Delete("/metrics");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, 405);
  auto m = c.Get("/metrics");
  ASSERT_TRUE(m);
  EXPECT_NE(m->body.find("realmt_requests_total{code=\"405\"} 1\n"), std::string::npos);
}

TEST(HttpServer, ContentTypeMustBeJson) {
  Served s(small_limits());
  auto c = s.client();
  const std::string body = R"({"text": ["ab"]})";
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded",
                           "application/json; charset=latin-1", "application/jsonx"}) {
    auto r = c.Post("/v1/translate", body, type);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 415) << type;
    EXPECT_NE(r->body.find("not supported"), std::string::npos) << r->body;
  }
  for (const char* type : {"application/json", "application/json; charset=utf-8",
                           "Application/JSON;charset=\"UTF-8\""}) {
    auto r = c.Post("/v1/translate", body, type);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << type;
    EXPECT_EQ(r->body, R"({"translations":["ba"]})");
  }
}

TEST(HttpServer, DuplicateFieldsAndHugeNumbersAre400NamingTheField) {
  Served s(small_limits());
  auto c = s.client();
  std::string answer;
  EXPECT_EQ(post(c, R"({"text": ["a"], "beam_size": 1, "beam_size": 4})", &answer), 400);
  EXPECT_NE(answer.find("beam_size: the field is given more than once"), std::string::npos)
      << answer;
  EXPECT_EQ(post(c, R"({"text": ["a"], "text": ["b"]})", &answer), 400);
  EXPECT_NE(answer.find("text: the field is given more than once"), std::string::npos) << answer;
  EXPECT_EQ(post(c, R"({"text": ["a"], "beam_size": 1e400})", &answer), 400);
  EXPECT_NE(answer.find("beam_size:"), std::string::npos) << answer;
  EXPECT_EQ(post(c, R"({"text": ["a"], "timeout_ms": -1e400})", &answer), 400);
  EXPECT_NE(answer.find("timeout_ms:"), std::string::npos) << answer;
  EXPECT_EQ(post(c, R"({"text": ["ok"]})", &answer), 200);
}

}  // namespace
}  // namespace realmt::server
