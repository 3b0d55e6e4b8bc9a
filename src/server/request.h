// The JSON API of realmt-server, as pure functions (no sockets): parsing and validating a
// translation request, formatting answers and errors.
//
//   POST /v1/translate  {"text": ["...", ...], "beam_size": 4, "n_best": 1, "timeout_ms": 5000,
//                        "target_language": "fra"}
//   -> 200 {"translations": ["...", ...]}                       (input order)
//      with n_best > 1 also "n_best": [[{"text": "...", "score": -1.2}, ...], ...]
//   errors -> {"error": "<reason naming the field>"} with the status of HttpError.
//
// Every field but "text" is optional (the server's defaults apply); unknown fields and fields
// given twice are refused (a misspelt or repeated option should not be ignored silently). The
// body must come with Content-Type: application/json (a charset parameter, if any, utf-8).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "search/search_options.h"

namespace realmt::server {

// What one request may ask for (413 when a size limit is passed, 400 for an option out of range).
struct RequestLimits {
  int64_t max_sentences = 16;         // entries of "text"
  int64_t max_sentence_bytes = 4096;  // bytes of one entry
  int64_t max_sentence_tokens = 256;  // subwords of one entry (checked after encoding)
  int max_beam_size = 16;
  int max_n_best = 16;
  int64_t max_timeout_ms = 60000;  // a request's deadline at most
};

// An error with the HTTP status it maps to and a reason for the client.
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& reason) : std::runtime_error(reason), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

struct TranslateRequest {
  std::vector<std::string> text;
  int beam_size = 0;  // 0: the server's default
  int n_best = 1;
  int64_t timeout_ms = 0;  // 0: the server's default
  std::string
      target_language;  // "fra": ">>fra<<" before every text (multilingual models); "": none
};

// Parses a request body. Throws HttpError: 400 for malformed JSON, a missing "text", wrong types,
// unknown or duplicate fields, numbers out of range (1e400) or options out of range, each
// naming the field; 413 for too many or too long sentences.
TranslateRequest parse_translate_request(std::string_view body, const RequestLimits& limits);

// Throws HttpError 415 unless the Content-Type field (null: absent) is application/json, with
// parameters allowed and a charset, if given, utf-8.
void check_json_content_type(const std::string* content_type);

// The search options of one request: the server's defaults with the request's beam and n-best.
// Throws HttpError 400 when n_best exceeds the beam.
search::SearchOptions request_search_options(const TranslateRequest& request,
                                             const search::SearchOptions& defaults);

struct ScoredText {
  std::string text;
  double score = 0.0;
};
// The 200 body: translations[i] is the best of nbest[i]; n-best lists only when n_best > 1.
std::string format_translations(const std::vector<std::vector<ScoredText>>& nbest, int n_best);
std::string format_error(std::string_view reason);

// What GET /v1/info answers: the language pair, the search defaults and limits a client (the web
// page) needs, whether a bearer token is required, and the program's version.
struct ServerInfo {
  std::string language_pair;
  std::vector<std::string> target_languages;  // a multilingual model's ("fra" for >>fra<<)
  int beam_size = 4;
  int max_beam_size = 16;
  int max_n_best = 16;
  int64_t max_request_sentences = 16;
  bool api_key_required = false;
};
std::string format_info(const ServerInfo& info);

// "Authorization: Bearer <token>" against the expected token, in time independent of where they
// differ (the length of `expected` may leak, its content does not).
bool bearer_matches(std::string_view authorization_header, std::string_view expected);
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace realmt::server
