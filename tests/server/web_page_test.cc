// realmt-server's web page (GET /) and GET /v1/info, through an ordinary HTTP client; the
// browser test (regression/server/web_page_test.py) drives the page itself in Chromium.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "server/served.h"
#include "server/web_page.h"

namespace realmt::server {
namespace {

using test::Served;
using test::small_limits;

TEST(WebPage, ServedAtRootWithItsControlsAndPolicy) {
  Served s(small_limits());
  auto c = s.client();
  for (const char* path : {"/", "/index.html"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_EQ(r->get_header_value("Content-Security-Policy"), kWebPagePolicy);
    EXPECT_EQ(r->body, web_page_html());
  }
  const std::string page(web_page_html());
  // What the issue asks of the page, by the ids the browser test uses.
  for (const char* id :
       {"id=\"source\"", "id=\"pair\"", "id=\"target-language\"", "target_language", "id=\"beam\"",
        "id=\"translate\"", "id=\"target\"", "id=\"timing\"", "id=\"metrics\"", "\"/v1/translate\"",
        "\"/metrics\"", "\"/v1/info\""}) {
    EXPECT_NE(page.find(id), std::string::npos) << id;
  }
  // Nothing from elsewhere: no absolute URL is loaded.
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  // Every metric the page shows is one /metrics exports (a renamed metric would show 0 for ever).
  ASSERT_EQ(c.Post("/v1/translate", R"({"text": ["ab"]})", "application/json")->status, 200);
  auto m = c.Get("/metrics");
  ASSERT_TRUE(m);
  const std::regex name_re("realmt_[a-z_]+");
  int names = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), name_re);
       it != std::sregex_iterator(); ++it, ++names) {
    const bool exported = m->body.find("\n" + it->str() + " ") != std::string::npos ||
                          m->body.find("\n" + it->str() + "{") != std::string::npos;
    EXPECT_TRUE(exported) << it->str() << " is not in /metrics";
  }
  EXPECT_GE(names, 8);
  auto p = c.Post("/", "{}", "application/json");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 405);
  EXPECT_EQ(p->get_header_value("Allow"), "GET, HEAD");
}

TEST(WebPage, InfoReportsPairDefaultsLimitsAndTheKeyRequirement) {
  HttpConfig cfg = small_limits();
  cfg.language_pair = "en-fr";
  cfg.search.beam_size = 3;
  Served s(cfg);
  auto c = s.client();
  auto r = c.Get("/v1/info");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  const auto j = nlohmann::json::parse(r->body);
  EXPECT_EQ(j.at("language_pair"), "en-fr");
  EXPECT_EQ(j.at("target_languages"), nlohmann::json::array());  // not a multilingual model
  EXPECT_EQ(j.at("beam_size"), 3);
  EXPECT_EQ(j.at("max_beam_size"), 4);
  EXPECT_EQ(j.at("max_n_best"), 4);
  EXPECT_EQ(j.at("max_request_sentences"), 4);
  EXPECT_EQ(j.at("api_key_required"), false);
  EXPECT_FALSE(j.at("version").get<std::string>().empty());

  HttpConfig multi = small_limits();
  multi.target_languages = {"fra", "spa"};
  Served m(multi);
  auto mc = m.client();
  EXPECT_EQ(nlohmann::json::parse(mc.Get("/v1/info")->body).at("target_languages"),
            nlohmann::json::array({"fra", "spa"}));

  HttpConfig keyed = small_limits();
  keyed.api_key = "k3y";
  Served k(keyed);
  auto kc = k.client();
  auto info = kc.Get("/v1/info");  // the page and its info need no token; translating does
  ASSERT_TRUE(info);
  EXPECT_EQ(nlohmann::json::parse(info->body).at("api_key_required"), true);
  EXPECT_EQ(kc.Get("/")->status, 200);
  EXPECT_EQ(kc.Post("/v1/translate", R"({"text": ["a"]})", "application/json")->status, 401);
}

}  // namespace
}  // namespace realmt::server
