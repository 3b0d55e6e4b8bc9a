// HTTP/1.1 messages as the server's own front sees them (server/http_parser.h reads requests,
// server/http_listener.h moves them between sockets and handlers): plain structs, no sockets.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace realmt::server {

struct HttpRequest {
  std::string method;     // as sent (methods are case-sensitive): "GET", "POST", ...
  std::string target;     // the request-target as sent: "/v1/translate?x=1"
  std::string path;       // the target up to '?'
  int version_minor = 1;  // HTTP/1.<minor>: 0 or 1
  // Field names lower-cased, values without surrounding whitespace, in arrival order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;        // Content-Length bytes, or the chunks joined
  bool keep_alive = true;  // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with keep-alive
  bool expect_continue = false;                    // "Expect: 100-continue"
  std::string peer;                                // the client's address (set by the listener)
  std::chrono::steady_clock::time_point received;  // when the request was complete (listener)

  // The value of the first field `name` (lower case), or null.
  const std::string* header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";  // empty: no Content-Type (no body)
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra fields ("Allow", ...)
  bool close = false;  // "Connection: close": the connection ends after this answer
  // With status 101: once this head is written the connection speaks WebSocket
  // (server/websocket_session.h); the head carries no Content-Length and no Connection of its
  // own (the handshake's fields say "Connection: Upgrade").
  bool upgrade = false;
};

// "OK", "Not Found", ...; "Unknown" for codes the server never sends.
const char* reason_phrase(int status);

// The status line and header fields of `response` (Content-Length always; Date; Connection as
// `keep_alive` says), ending with the empty line; a 101 gets only Date and `headers`. The body
// follows (the caller leaves it out in the answer to HEAD: the length stays the one GET would
// give).
std::string response_head(const HttpResponse& response, bool keep_alive);

// Whether the comma-separated list `value` (a Connection or Transfer-Encoding field) holds
// `token`, compared case-insensitively.
bool has_token(std::string_view value, std::string_view token);

bool iequals(std::string_view a, std::string_view b);

}  // namespace realmt::server
