// The pure parts of realmt-server's Marian and MT-API protocols (server/compat_api.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/compat_api.h"

namespace realmt::server {
namespace {

using Lines = std::vector<std::string>;

TEST(MarianLines, SplitAsGetlineReads) {
  EXPECT_EQ(split_marian_lines(""), Lines{});
  EXPECT_EQ(split_marian_lines("a"), Lines{"a"});
  EXPECT_EQ(split_marian_lines("a\n"), Lines{"a"});
  EXPECT_EQ(split_marian_lines("a\nb"), (Lines{"a", "b"}));
  EXPECT_EQ(split_marian_lines("a\n\nb\n"), (Lines{"a", "", "b"}));
  EXPECT_EQ(split_marian_lines("\n"), Lines{""});
  EXPECT_EQ(split_marian_lines("a\r\nb"), (Lines{"a\r", "b"}));
}

TEST(MarianLines, JoinEndsEveryLine) {
  EXPECT_EQ(join_marian_lines({}), "\n");
  EXPECT_EQ(join_marian_lines({"x"}), "x\n");
  EXPECT_EQ(join_marian_lines({"x", "", "y"}), "x\n\ny\n");
}

RequestLimits limits() {
  RequestLimits l;
  l.max_sentences = 3;
  l.max_sentence_bytes = 10;
  return l;
}

int status_of(std::string_view target, std::string_view body, std::string_view pair = "en-fr") {
  try {
    parse_mtapi_request(target, body, limits(), pair);
    return 200;
  } catch (const HttpError& e) {
    return e.status();
  }
}

std::string reason_of(std::string_view target, std::string_view body) {
  try {
    parse_mtapi_request(target, body, limits(), "en-fr");
  } catch (const HttpError& e) {
    return e.what();
  }
  return "";
}

TEST(MtApi, ParsesTextsAndTarget) {
  const MtApiRequest r =
      parse_mtapi_request("/translate?api-version=3.0&from=en&to=fr",
                          R"([{"text": "a b"}, {"Text": "c"}])", limits(), "en-fr");
  EXPECT_EQ(r.text, (Lines{"a b", "c"}));
  EXPECT_EQ(r.to, "fr");
  EXPECT_EQ(parse_mtapi_request("/translate", "[]", limits(), "en-fr").to, "fr");
  EXPECT_EQ(parse_mtapi_request("/translate?to=de", "[]", limits(), "").to, "de");
  EXPECT_EQ(parse_mtapi_request("/translate", "[]", limits(), "").to, "");
  EXPECT_EQ(parse_mtapi_request("/translate?to=%66r", "[]", limits(), "en-fr").to, "fr");
}

TEST(MtApi, WrongShapesAre400NamingTheField) {
  EXPECT_EQ(status_of("/translate", "{"), 400);
  EXPECT_EQ(status_of("/translate", R"({"text": "a"})"), 400);
  EXPECT_NE(reason_of("/translate", R"({"text": "a"})").find("array"), std::string::npos);
  EXPECT_NE(reason_of("/translate", R"(["a"])").find("[0]"), std::string::npos);
  EXPECT_NE(reason_of("/translate", R"([{"text": "a"}, {}])").find("[1].text: missing"),
            std::string::npos);
  EXPECT_NE(reason_of("/translate", R"([{"text": 5}])").find("[0].text: must be a string"),
            std::string::npos);
  EXPECT_NE(reason_of("/translate", R"([{"text": "a", "lang": "x"}])").find("[0].lang"),
            std::string::npos);
  EXPECT_EQ(status_of("/translate", R"([{"text": "a", "Text": "b"}])"), 400);
  EXPECT_EQ(status_of("/translate", R"([{"text": "a", "text": "b"}])"), 400);
  EXPECT_EQ(status_of("/translate", R"([{"text": null}])"), 400);
}

TEST(MtApi, QueryParameters) {
  EXPECT_EQ(status_of("/translate?to=de", "[]"), 400);
  EXPECT_NE(reason_of("/translate?to=de", "[]").find("to: 'de'"), std::string::npos);
  EXPECT_NE(reason_of("/translate?from=de", "[]").find("from: 'de'"), std::string::npos);
  EXPECT_EQ(status_of("/translate?to=FR&from=EN", "[]"), 200);
  EXPECT_EQ(status_of("/translate?to=fr&to=de", "[]"), 400);
  EXPECT_EQ(status_of("/translate?api-version=2.0", "[]"), 400);
  EXPECT_EQ(status_of("/translate?textType=html", "[]"), 400);
  EXPECT_EQ(status_of("/translate?textType=plain", "[]"), 200);
  EXPECT_NE(reason_of("/translate?category=x", "[]").find("'category'"), std::string::npos);
  EXPECT_EQ(status_of("/translate?to=%zz", "[]"), 400);
  EXPECT_EQ(status_of("/translate?to=anything", "[]", ""), 200);
}

TEST(MtApi, SizeLimitsAre413) {
  EXPECT_EQ(status_of("/translate", R"([{"text": "a"}, {"text": "b"}, {"text": "c"}])"), 200);
  EXPECT_EQ(
      status_of("/translate", R"([{"text": "a"}, {"text": "b"}, {"text": "c"}, {"text": "d"}])"),
      413);
  EXPECT_EQ(status_of("/translate", R"([{"text": "0123456789x"}])"), 413);
}

TEST(MtApi, AnswerShapes) {
  const auto j = nlohmann::json::parse(format_mtapi_translations({"x", "y"}, "fr"));
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["translations"][0]["text"], "y");
  EXPECT_EQ(j[1]["translations"][0]["to"], "fr");
  EXPECT_FALSE(
      nlohmann::json::parse(format_mtapi_translations({"x"}, ""))[0]["translations"][0].contains(
          "to"));
  const auto e = nlohmann::json::parse(format_mtapi_error(413, "too big"));
  EXPECT_EQ(e["error"]["code"], 413000);
  EXPECT_EQ(e["error"]["message"], "too big");
}

}  // namespace
}  // namespace realmt::server
