// The HTTP service of realmt-server: routes, authentication, limits, metrics, drain, on the
// server's own HTTP/1.1 front (server/http_listener.h: epoll, deadlines, connection caps).
//
//   POST /v1/translate   JSON request (server/request.h), Content-Type: application/json
//                        -> 200 {"translations": [...]}
//                        400 malformed / wrong types / duplicate fields, 401 missing or wrong
//                        bearer token, 405 another method (Allow: POST), 411 no length,
//                        413 body, sentence count or sentence length over the limits,
//                        415 another Content-Type, 429 queue full, 503 draining,
//                        504 deadline passed, 500 decoding failed
//   GET  /health         200 {"status": "ok"}; 503 {"status": "draining"} while draining
//   GET  /metrics        Prometheus text: requests by code, sentences, batch sizes, queue depth,
//                        latency histogram, connections (needs the bearer token when one is set)
//   GET  /v1/info        {"language_pair", "beam_size", "max_beam_size", "max_n_best",
//                        "max_request_sentences", "api_key_required", "version"}
//   GET  /               the web page (server/web_page.h), no token needed (its requests need one)
//   GET  /translate      Marian's WebSocket protocol (server/compat_api.h): 101 for a valid
//                        handshake (a bearer token when one is set), 426 for a plain GET
//   POST /translate      pymarian's MT-API (server/compat_api.h): the statuses of
//                        /v1/translate, errors as {"error": {"code", "message"}}
// Every error answer is {"error": "<reason>"}; the front's own refusals (408, 414, 431, 429
// and 503 for the connection caps, ...) too. /health and /metrics are answered on the front's
// loop thread, so they stay fast while every worker waits for the decoder.
//
// Every sentence of every request goes through one BatchScheduler; the worker threads encode
// and decode text, the scheduler's single thread runs the beam search.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "search/search_options.h"
#include "server/batch_scheduler.h"
#include "server/http_listener.h"
#include "server/metrics.h"
#include "server/request.h"

namespace realmt::server {

struct HttpConfig {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8080;                 // 0: any free port (bind() says which)
  int threads = 128;               // worker threads: translation requests handled at once
  std::string api_key;             // non-empty: "Authorization: Bearer <api_key>" required
  std::string language_pair;       // "en-fr", shown by the page and /v1/info (empty: unknown)
  // A multilingual model's target languages ("fra" for the tag >>fra<<), offered by the page and
  // listed by /v1/info; empty for a model without tags.
  std::vector<std::string> target_languages;
  int64_t max_body_bytes = 1 << 20;
  int64_t max_header_bytes = 16384;      // request line and header fields
  int64_t idle_timeout_ms = 5000;        // waiting for a request (new or kept-alive connection)
  int64_t header_timeout_ms = 10000;     // request line and fields, from their first byte
  int64_t body_timeout_ms = 30000;       // the body, from the end of the fields
  int64_t write_timeout_ms = 10000;      // an answer to be taken by the client
  int max_connections = 10000;           // open connections at most (503 beyond)
  int max_connections_per_client = 256;  // per client address (429 beyond)
  int64_t websocket_idle_timeout_ms = 300000;  // a WebSocket between messages (also its limit:
                                               // max_body_bytes a message)
  int64_t default_timeout_ms = 60000;          // a request's deadline unless it asks for less
  RequestLimits limits;
  search::SearchOptions search;  // defaults; a request may set beam_size and n_best
  SchedulerOptions scheduler;
};

// Text <-> subword ids (the vocabulary; a fake in tests). All may be called from many threads.
struct TextCodec {
  std::function<std::vector<int32_t>(const std::string&)> encode;
  std::function<std::string(const std::vector<int32_t>&)> decode;
  // A target language's tag (">>fra<<" for "fra", data::Vocab::language_tag); throws a
  // std::exception saying why when the vocabulary has none. Unset: no language is accepted.
  std::function<std::string(const std::string&)> language_tag;
};

class HttpServer {
 public:
  HttpServer(HttpConfig config, TextCodec codec, DecodeFn decode);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the listening socket; returns the port (the chosen one when config.port is 0).
  int bind();
  // Open connections now (for tests and the realmt_http_connections gauge).
  int open_connections() const { return listener_->open_connections(); }
  // Serves until shutdown(); call after bind(), from one thread.
  void serve();
  // From now on new requests get 503 (Connection: close); queued ones are still decoded.
  void begin_drain();
  // begin_drain, then waits (at most `timeout`) until the queue is decoded and every handler
  // has answered, then stops serve(). True when everything finished within the timeout.
  bool shutdown(std::chrono::milliseconds timeout);

  Registry& metrics() { return registry_; }
  bool draining() const { return draining_.load(); }

 private:
  // On the front's loop thread: answers every route but a translation that passed the checks.
  std::optional<HttpResponse> route(const HttpRequest& req);
  // GET and POST /translate (http_server_compat.cc), on the loop thread.
  std::optional<HttpResponse> route_compat(const HttpRequest& req);
  // On a worker thread.
  HttpResponse translate(const HttpRequest& req);
  HttpResponse translate_mtapi(const HttpRequest& req);
  WsReply translate_message(const std::string& message);
  // Puts the request's target language's tag in front of its texts (400 when the vocabulary has
  // none).
  void add_language_tag(TranslateRequest& request) const;
  // Encodes `texts`, queues them in the scheduler, waits (at most timeout_ms from t0) and
  // decodes the hypotheses. Throws HttpError: 413 for a source over max_sentence_tokens (named
  // "<what>[offset + i]"), and the scheduler's 429, 503, 504 and 500.
  std::vector<std::vector<ScoredText>> decode_texts(std::span<const std::string> texts,
                                                    const search::SearchOptions& options,
                                                    Clock::time_point t0, int64_t timeout_ms,
                                                    std::string_view what, size_t offset = 0);
  HttpResponse refuse(int status, const std::string& reason, const HttpRequest& partial);
  bool authorized(const HttpRequest& req) const;
  void count(int status, double seconds);
  void count_mtapi(int status);

  HttpConfig config_;
  TextCodec codec_;
  Registry registry_;  // before the scheduler: its gauges read the scheduler until it is gone
  std::unique_ptr<BatchScheduler> scheduler_;
  std::atomic<bool> draining_{false};
  std::atomic<int> active_{0};  // translate handlers running
  Histogram* latency_ = nullptr;
  Counter* sentences_ = nullptr;
  Counter* ws_messages_ = nullptr;
  std::unique_ptr<HttpListener> listener_;  // last: its workers call into everything above
};

}  // namespace realmt::server
