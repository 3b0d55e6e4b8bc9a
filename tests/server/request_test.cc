#include "server/request.h"

#include <gtest/gtest.h>

#include <string>

namespace realmt::server {
namespace {

int status_of(const std::string& body, const RequestLimits& limits = {}) {
  try {
    parse_translate_request(body, limits);
  } catch (const HttpError& e) {
    return e.status();
  }
  return 200;
}

std::string reason_of(const std::string& body, const RequestLimits& limits = {}) {
  try {
    parse_translate_request(body, limits);
  } catch (const HttpError& e) {
    return e.what();
  }
  return "";
}

TEST(Request, ParsesTextAndOptions) {
  const TranslateRequest r = parse_translate_request(
      R"({"text": ["a b", "c"], "beam_size": 3, "n_best": 2, "timeout_ms": 500, "target_language": "fra"})",
      {});
  EXPECT_EQ(r.text, (std::vector<std::string>{"a b", "c"}));
  EXPECT_EQ(r.beam_size, 3);
  EXPECT_EQ(r.n_best, 2);
  EXPECT_EQ(r.timeout_ms, 500);
  EXPECT_EQ(r.target_language, "fra");
  const TranslateRequest d = parse_translate_request(R"({"text": []})", {});
  EXPECT_TRUE(d.text.empty());
  EXPECT_EQ(d.beam_size, 0);  // the server's default
  EXPECT_EQ(d.n_best, 1);
  EXPECT_EQ(d.target_language, "");
}

TEST(Request, MalformedAndWrongTypesAre400NamingTheField) {
  EXPECT_EQ(status_of(R"({"text": ["a")"), 400);
  EXPECT_NE(reason_of(R"({"text": ["a")").find("malformed JSON"), std::string::npos);
  EXPECT_EQ(status_of(""), 400);
  EXPECT_EQ(status_of(R"(["a"])"), 400);
  EXPECT_NE(reason_of("{}").find("text: missing"), std::string::npos);
  EXPECT_NE(reason_of(R"({"text": "a"})").find("text: must be an array"), std::string::npos);
  EXPECT_NE(reason_of(R"({"text": ["a", 2]})").find("text[1]: must be a string"),
            std::string::npos);
  EXPECT_NE(reason_of(R"({"text": ["a"], "beam_size": "4"})").find("beam_size: must be an integer"),
            std::string::npos);
  EXPECT_NE(reason_of(R"({"text": ["a"], "beam_size": 4.0})").find("beam_size"), std::string::npos);
  EXPECT_NE(reason_of(R"({"text": ["a"], "n_best": true})").find("n_best"), std::string::npos);
  for (const char* bad :
       {R"({"text": ["a"], "target_language": 3})", R"({"text": ["a"], "target_language": ""})"})
    EXPECT_NE(reason_of(bad).find("target_language: must be a non-empty string"), std::string::npos)
        << bad;
  EXPECT_NE(reason_of(R"({"text": ["a"], "beam": 4})").find("unknown field 'beam'"),
            std::string::npos);
  // Invalid UTF-8 inside a string is malformed JSON.
  EXPECT_EQ(status_of("{\"text\": [\"\xff\"]}"), 400);
}

TEST(Request, OptionsOutsideTheServerLimitsAre400) {
  RequestLimits l;
  l.max_beam_size = 8;
  l.max_n_best = 4;
  EXPECT_EQ(status_of(R"({"text": ["a"], "beam_size": 8})", l), 200);
  EXPECT_NE(reason_of(R"({"text": ["a"], "beam_size": 9})", l).find("beam_size: must be in [1, 8]"),
            std::string::npos);
  EXPECT_EQ(status_of(R"({"text": ["a"], "beam_size": 0})", l), 400);
  EXPECT_EQ(status_of(R"({"text": ["a"], "beam_size": -3})", l), 400);
  EXPECT_EQ(status_of(R"({"text": ["a"], "beam_size": 18446744073709551615})", l), 400);
  EXPECT_EQ(status_of(R"({"text": ["a"], "n_best": 5})", l), 400);
  EXPECT_EQ(status_of(R"({"text": ["a"], "timeout_ms": 0})", l), 400);
  search::SearchOptions defaults;
  defaults.beam_size = 2;
  TranslateRequest r;
  r.n_best = 3;
  try {
    request_search_options(r, defaults);
    FAIL() << "n_best above the beam accepted";
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_NE(std::string(e.what()).find("n_best"), std::string::npos);
  }
  r.beam_size = 3;
  EXPECT_EQ(request_search_options(r, defaults).beam_size, 3);
  EXPECT_EQ(request_search_options(r, defaults).n_best, 3);
}

TEST(Request, OversizeIs413) {
  RequestLimits l;
  l.max_sentences = 2;
  l.max_sentence_bytes = 5;
  EXPECT_EQ(status_of(R"({"text": ["a", "b"]})", l), 200);
  EXPECT_EQ(status_of(R"({"text": ["a", "b", "c"]})", l), 413);
  EXPECT_EQ(status_of(R"({"text": ["abcdef"]})", l), 413);
  EXPECT_NE(reason_of(R"({"text": ["a", "abcdef"]})", l).find("text[1]: 6 bytes"),
            std::string::npos);
}

TEST(Request, FormatsTranslationsAndNBest) {
  const std::vector<std::vector<ScoredText>> h{{{"x y", -1.5}, {"x", -2.0}}, {{"z", -0.5}}};
  EXPECT_EQ(format_translations(h, 1), R"({"translations":["x y","z"]})");
  const std::string nb = format_translations(h, 2);
  EXPECT_NE(nb.find(R"("translations":["x y","z"])"), std::string::npos);
  EXPECT_NE(nb.find(R"("n_best":[[{"score":-1.5,"text":"x y"},{"score":-2.0,"text":"x"}])"),
            std::string::npos)
      << nb;
  EXPECT_EQ(format_error("bad \"x\""), R"({"error":"bad \"x\""})");
}

TEST(Request, DuplicateFieldsAreRefusedNamingTheKey) {
  EXPECT_EQ(status_of(R"({"text": ["a"], "n_best": 1, "n_best": 1})"), 400);
  EXPECT_NE(reason_of(R"({"n_best": 1, "text": ["a"], "n_best": 2})")
                .find("n_best: the field is given more than once"),
            std::string::npos);
  // Keys of different objects do not clash (an inner object is refused for its type).
  EXPECT_NE(reason_of(R"({"text": [{"a": 1}, {"a": 2}]})").find("text[0]: must be a string"),
            std::string::npos);
}

TEST(Request, NumbersBeyondDoubleAre400NamingTheField) {
  EXPECT_EQ(status_of(R"({"text": ["a"], "beam_size": 1e400})"), 400);
  EXPECT_NE(reason_of(R"({"text": ["a"], "beam_size": 1e400})").find("beam_size: "),
            std::string::npos);
  EXPECT_NE(reason_of(R"({"text": [-1e999]})").find("text: "), std::string::npos);
  EXPECT_EQ(status_of(R"({"text": ["a"], "beam_size": 1e-400})"), 400);  // 0.0: not an integer
}

TEST(Request, ContentTypeIsJsonWithAnOptionalUtf8Charset) {
  const auto status = [](const char* type) {
    const std::string v = type ? type : "";
    try {
      check_json_content_type(type ? &v : nullptr);
    } catch (const HttpError& e) {
      return e.status();
    }
    return 200;
  };
  EXPECT_EQ(status("application/json"), 200);
  EXPECT_EQ(status("application/json;charset=utf-8"), 200);
  EXPECT_EQ(status(" APPLICATION/JSON ; Charset=\"UTF-8\" "), 200);
  EXPECT_EQ(status(nullptr), 415);
  EXPECT_EQ(status(""), 415);
  EXPECT_EQ(status("text/json"), 415);
  EXPECT_EQ(status("application/json; charset=iso-8859-1"), 415);
  EXPECT_EQ(status("application/json-patch+json"), 415);
}

TEST(Request, BearerToken) {
  EXPECT_TRUE(bearer_matches("Bearer s3cret", "s3cret"));
  EXPECT_FALSE(bearer_matches("Bearer s3cre", "s3cret"));
  EXPECT_FALSE(bearer_matches("Bearer s3cret2", "s3cret"));
  EXPECT_FALSE(bearer_matches("bearer s3cret", "s3cret"));
  EXPECT_FALSE(bearer_matches("", "s3cret"));
  EXPECT_FALSE(bearer_matches("Bearer s3creT", "s3cret"));
  EXPECT_TRUE(constant_time_equal("", ""));
  EXPECT_FALSE(constant_time_equal("a", ""));
}

}  // namespace
}  // namespace realmt::server
