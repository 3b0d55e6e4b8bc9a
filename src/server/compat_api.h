// The two protocols realmt-server speaks besides its own JSON, so that Marian and OPUS-MT
// clients work unchanged; pure functions (no sockets).
//
// Marian's marian-server (WebSocket ws://HOST:PORT/translate): a text message is sentences, one
// a line, read as std::getline reads them (a final '\n' ends the last line and starts no new
// one; an empty line is a sentence, translated like any other; '\r' is kept); the reply is the
// translations in order, each followed by '\n' (so "" gets "\n").
//
// pymarian's MT-API server (Microsoft Translator v3 style), POST /translate:
//   ?api-version=3.0&from=en&to=fr        (all optional; from/to must match --language-pair)
//   [{"text": "..."}, ...]                ("Text" as Microsoft's documentation spells it, too)
//   -> 200 [{"translations": [{"text": "...", "to": "fr"}]}, ...]    one entry per input
//   errors -> {"error": {"code": <status x 1000>, "message": "<reason naming the field>"}}
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/request.h"

namespace realmt::server {

// "/translate" or "/translate/" (marian-server's route is the pattern ^/translate/?$).
bool is_compat_path(std::string_view path);

std::vector<std::string> split_marian_lines(std::string_view message);
std::string join_marian_lines(const std::vector<std::string>& translations);

struct MtApiRequest {
  std::vector<std::string> text;
  std::string to;  // the target language to report ("" when neither the query nor the pair says)
};

// Parses the request target's query and the body. Throws HttpError: 400 for malformed JSON, a
// body that is not an array of objects with one string "text", an unknown or repeated query
// parameter, api-version other than 3.0, textType other than plain, several targets, or from/to
// other than --language-pair's sides (language_pair "en-fr"; "" accepts any); 413 for more than
// limits.max_sentences entries or an entry over limits.max_sentence_bytes.
MtApiRequest parse_mtapi_request(std::string_view target, std::string_view body,
                                 const RequestLimits& limits, std::string_view language_pair);

std::string format_mtapi_translations(const std::vector<std::string>& translations,
                                      const std::string& to);
std::string format_mtapi_error(int status, std::string_view reason);

}  // namespace realmt::server
