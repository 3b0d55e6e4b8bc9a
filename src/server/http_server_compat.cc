// realmt-server's drop-ins for Marian and OPUS-MT clients (server/compat_api.h): GET /translate
// upgrades to marian-server's WebSocket protocol, POST /translate is pymarian's MT-API. Both
// queue their sentences in the same BatchScheduler as /v1/translate.
#include <algorithm>
#include <span>

#include "core/error.h"
#include "server/compat_api.h"
#include "server/http_server.h"
#include "server/websocket_frame.h"
#include "server/websocket_handshake.h"

namespace realmt::server {

namespace {

HttpResponse mtapi_answer(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

// The close code that tells a WebSocket client what an HttpError status meant.
int close_code(int status) {
  switch (status) {
    case 413: return WsClose::kTooBig;
    case 429: return WsClose::kTryAgainLater;
    case 503: return WsClose::kGoingAway;
    default: return WsClose::kInternalError;
  }
}

}  // namespace

void HttpServer::count_mtapi(int status) {
  registry_
      .counter("realmt_mtapi_requests_total", "Requests to POST /translate by status", "code",
               std::to_string(status))
      .add(1);
}

std::optional<HttpResponse> HttpServer::route_compat(const HttpRequest& req) {
  const bool get = req.method == "GET";
  std::optional<HttpResponse> refused;
  if (!get && req.method != "POST") {
    refused = mtapi_answer(405, format_mtapi_error(405, format("{} {}: method not allowed "
                                                               "(allowed: GET with Upgrade: "
                                                               "websocket, POST)",
                                                               req.method, req.path)));
    refused->headers.emplace_back("Allow", "GET, POST");
  } else if (draining_) {
    refused = mtapi_answer(
        503, format_mtapi_error(503, "the server is shutting down; retry on another instance"));
    refused->close = true;
  } else if (!authorized(req)) {
    refused = mtapi_answer(
        401,
        format_mtapi_error(401, "missing or wrong bearer token (Authorization: Bearer <key>)"));
    refused->headers.emplace_back("WWW-Authenticate", "Bearer");
  } else if (get) {
    return websocket_handshake(req);  // 101, or 426 for a GET that is no handshake
  } else {
    try {
      check_json_content_type(req.header("content-type"));
    } catch (const HttpError& e) {
      refused = mtapi_answer(e.status(), format_mtapi_error(e.status(), e.what()));
    }
  }
  if (refused && !get) count_mtapi(refused->status);
  return refused;  // nullopt: a worker translates
}

HttpResponse HttpServer::translate_mtapi(const HttpRequest& req) {
  HttpResponse res;
  try {
    if (draining_) {
      res.close = true;
      throw HttpError(503, "the server is shutting down; retry on another instance");
    }
    const MtApiRequest request =
        parse_mtapi_request(req.target, req.body, config_.limits, config_.language_pair);
    const auto texts =
        decode_texts(request.text, config_.search, req.received, config_.default_timeout_ms, "");
    std::vector<std::string> best;
    for (const auto& hyps : texts) best.push_back(hyps.empty() ? std::string() : hyps[0].text);
    res.body = format_mtapi_translations(best, request.to);
  } catch (const HttpError& e) {
    res.status = e.status();
    res.body = format_mtapi_error(e.status(), e.what());
  } catch (const std::exception& e) {
    res.status = 500;
    res.body = format_mtapi_error(500, e.what());
  }
  count_mtapi(res.status);
  return res;
}

WsReply HttpServer::translate_message(const std::string& message) {
  WsReply reply;
  try {
    if (draining_) throw HttpError(503, "the server is shutting down");
    const std::vector<std::string> lines = split_marian_lines(message);
    std::vector<std::string> translations;
    // A message may hold a whole document: it is queued in requests of at most
    // max-request-sentences lines, one after the other, so that it cannot fill the queue.
    const size_t step = static_cast<size_t>(config_.limits.max_sentences);
    for (size_t i = 0; i < lines.size(); i += step) {
      const std::span<const std::string> part(lines.data() + i, std::min(lines.size() - i, step));
      for (size_t j = 0; j < part.size(); ++j)
        if (static_cast<int64_t>(part[j].size()) > config_.limits.max_sentence_bytes)
          throw HttpError(
              413, format("lines[{}]: {} bytes, this server takes at most {} a sentence", i + j,
                          part[j].size(), config_.limits.max_sentence_bytes));
      const auto texts =
          decode_texts(part, config_.search, Clock::now(), config_.default_timeout_ms, "lines", i);
      for (const auto& hyps : texts) translations.push_back(hyps.empty() ? "" : hyps[0].text);
    }
    reply.text = join_marian_lines(translations);
    ws_messages_->add(1);
  } catch (const HttpError& e) {
    reply.close_code = close_code(e.status());
    reply.close_reason = e.what();
  }
  return reply;
}

}  // namespace realmt::server
