#include "server/request.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "server/http_message.h"
#include "server/json_body.h"

#ifndef REALMT_VERSION
#define REALMT_VERSION "unknown"  // set by src/server/CMakeLists.txt
#endif

namespace realmt::server {

namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& reason) { throw HttpError(400, reason); }

// An integer field in [lo, hi]; 400 naming the field otherwise (4.0, "4" and true are refused).
int64_t integer_field(const json& v, const char* name, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) bad(format("{}: must be an integer, got {}", name, v.type_name()));
  // Unsigned values above int64's range compare as out of range, not as negative numbers.
  const bool huge = v.is_number_unsigned() &&
                    v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const int64_t x = huge ? std::numeric_limits<int64_t>::max() : v.get<int64_t>();
  if (huge || x < lo || x > hi)
    bad(format("{}: must be in [{}, {}] on this server, got {}", name, lo, hi, v.dump()));
  return x;
}

}  // namespace

nlohmann::json parse_json_body(std::string_view body) {
  // The parser keeps only the last of repeated keys; the callback sees every key first, and
  // remembers the field being read, to name it when a number overflows.
  std::vector<std::set<std::string>> keys;  // of each object being read
  std::string field;
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      keys.pop_back();
    } else if (event == json::parse_event_t::key) {
      field = parsed.get<std::string>();
      if (!keys.back().insert(field).second)
        bad(format("{}: the field is given more than once", field));
    }
    return true;
  };
  try {
    return json::parse(body.begin(), body.end(), check);
  } catch (const json::parse_error& e) {
    // e.byte is where the parser stopped; the message already names what it expected.
    bad(format("malformed JSON: {}", e.what()));
  } catch (const json::exception& e) {
    // out_of_range.406: a number beyond double's range, such as 1e400.
    bad(format("{}: {}", field.empty() ? std::string("body") : field, e.what()));
  }
}

TranslateRequest parse_translate_request(std::string_view body, const RequestLimits& limits) {
  const json doc = parse_json_body(body);
  if (!doc.is_object()) bad(format("the body must be a JSON object, got {}", doc.type_name()));
  TranslateRequest r;
  bool has_text = false;
  for (const auto& [key, v] : doc.items()) {
    if (key == "text") {
      has_text = true;
      if (!v.is_array()) bad(format("text: must be an array of strings, got {}", v.type_name()));
      if (static_cast<int64_t>(v.size()) > limits.max_sentences)
        throw HttpError(413, format("text: {} sentences, this server takes at most {} a request",
                                    v.size(), limits.max_sentences));
      r.text.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string())
          bad(format("text[{}]: must be a string, got {}", i, v[i].type_name()));
        const auto& s = v[i].get_ref<const std::string&>();
        if (static_cast<int64_t>(s.size()) > limits.max_sentence_bytes)
          throw HttpError(413, format("text[{}]: {} bytes, this server takes at most {} a sentence",
                                      i, s.size(), limits.max_sentence_bytes));
        r.text.push_back(s);
      }
    } else if (key == "beam_size") {
      r.beam_size = static_cast<int>(integer_field(v, "beam_size", 1, limits.max_beam_size));
    } else if (key == "n_best") {
      r.n_best = static_cast<int>(integer_field(v, "n_best", 1, limits.max_n_best));
    } else if (key == "timeout_ms") {
      r.timeout_ms = integer_field(v, "timeout_ms", 1, limits.max_timeout_ms);
    } else if (key == "target_language") {
      if (!v.is_string() || v.get_ref<const std::string&>().empty())
        bad(format("target_language: must be a non-empty string, got {}", v.dump()));
      r.target_language = v.get<std::string>();
    } else {
      bad(format("unknown field '{}' (known: text, beam_size, n_best, timeout_ms, target_language)",
                 key));
    }
  }
  if (!has_text) bad("text: missing (give {\"text\": [\"sentence\", ...]})");
  return r;
}

void check_json_content_type(const std::string* content_type) {
  if (!content_type)
    throw HttpError(415, "Content-Type missing (send Content-Type: application/json)");
  std::string_view rest = *content_type;
  const auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  const std::string_view type = trim(rest.substr(0, rest.find(';')));
  if (!iequals(type, "application/json"))
    throw HttpError(
        415, format("Content-Type '{}' is not supported (send application/json)", *content_type));
  while (rest.find(';') != std::string_view::npos) {
    rest.remove_prefix(rest.find(';') + 1);
    const std::string_view param = trim(rest.substr(0, rest.find(';')));
    const size_t eq = param.find('=');
    if (eq == std::string_view::npos || !iequals(trim(param.substr(0, eq)), "charset")) continue;
    std::string_view charset = trim(param.substr(eq + 1));
    if (charset.size() >= 2 && charset.front() == '"' && charset.back() == '"')
      charset = charset.substr(1, charset.size() - 2);
    if (!iequals(charset, "utf-8") && !iequals(charset, "utf8"))
      throw HttpError(
          415, format("Content-Type charset '{}' is not supported (JSON is UTF-8)", charset));
  }
}

search::SearchOptions request_search_options(const TranslateRequest& request,
                                             const search::SearchOptions& defaults) {
  search::SearchOptions s = defaults;
  if (request.beam_size > 0) s.beam_size = request.beam_size;
  s.n_best = request.n_best;
  if (s.n_best > s.beam_size)
    bad(format("n_best: {} is more than the beam size {} (n_best <= beam_size)", s.n_best,
               s.beam_size));
  return s;
}

std::string format_translations(const std::vector<std::vector<ScoredText>>& nbest, int n_best) {
  json best = json::array();
  for (const auto& hyps : nbest) best.push_back(hyps.empty() ? std::string() : hyps[0].text);
  json out = {{"translations", std::move(best)}};
  if (n_best > 1) {
    json lists = json::array();
    for (const auto& hyps : nbest) {
      json list = json::array();
      for (const ScoredText& h : hyps) list.push_back({{"text", h.text}, {"score", h.score}});
      lists.push_back(std::move(list));
    }
    out["n_best"] = std::move(lists);
  }
  // Decoded text is valid UTF-8; replace rather than throw if a vocabulary ever breaks that.
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string format_info(const ServerInfo& info) {
  const json out = {{"language_pair", info.language_pair},
                    {"target_languages", info.target_languages},
                    {"beam_size", info.beam_size},
                    {"max_beam_size", info.max_beam_size},
                    {"max_n_best", info.max_n_best},
                    {"max_request_sentences", info.max_request_sentences},
                    {"api_key_required", info.api_key_required},
                    {"version", REALMT_VERSION}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string format_error(std::string_view reason) {
  return json{{"error", std::string(reason)}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Every byte of `b` (the expected secret) is visited whatever `a` holds.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < b.size(); ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ static_cast<unsigned char>(b[i]));
  }
  return diff == 0;
}

bool bearer_matches(std::string_view header, std::string_view expected) {
  constexpr std::string_view kPrefix = "Bearer ";
  if (header.size() < kPrefix.size() || header.substr(0, kPrefix.size()) != kPrefix) return false;
  return constant_time_equal(header.substr(kPrefix.size()), expected);
}

}  // namespace realmt::server
