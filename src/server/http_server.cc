#include "server/http_server.h"

#include <thread>

#include "core/error.h"
#include "data/vocab.h"
#include "server/compat_api.h"
#include "server/web_page.h"

namespace realmt::server {

namespace {

constexpr const char* kJson = "application/json";
constexpr const char* kTranslatePath = "/v1/translate";

HttpResponse json_answer(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse error_answer(int status, const std::string& reason) {
  return json_answer(status, format_error(reason));
}

HttpResponse method_not_allowed(const HttpRequest& req, const char* allow) {
  HttpResponse r = error_answer(
      405, format("{} {}: method not allowed (allowed: {})", req.method, req.path, allow));
  r.headers.emplace_back("Allow", allow);
  return r;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

HttpServer::HttpServer(HttpConfig config, TextCodec codec, DecodeFn decode)
    : config_(std::move(config)), codec_(std::move(codec)) {
  REALMT_CHECK(config_.default_timeout_ms >= 1, "request-timeout-ms must be at least 1");
  REALMT_CHECK(config_.limits.max_sentences <= config_.scheduler.max_queue_sentences,
               "max-request-sentences ({}) must not exceed max-queue-sentences ({}): such "
               "requests could never be queued",
               config_.limits.max_sentences, config_.scheduler.max_queue_sentences);
  config_.search.validate(config_.search.weights.empty() ? 1 : config_.search.weights.size());
  ListenerOptions front;
  front.host = config_.host;
  front.port = config_.port;
  front.threads = config_.threads;
  front.limits.max_body_bytes = config_.max_body_bytes;
  front.limits.max_header_bytes = config_.max_header_bytes;
  front.idle_timeout_ms = config_.idle_timeout_ms;
  front.header_timeout_ms = config_.header_timeout_ms;
  front.body_timeout_ms = config_.body_timeout_ms;
  front.write_timeout_ms = config_.write_timeout_ms;
  front.max_connections = config_.max_connections;
  front.max_connections_per_client = config_.max_connections_per_client;
  front.max_message_bytes = config_.max_body_bytes;
  front.websocket_idle_timeout_ms = config_.websocket_idle_timeout_ms;
  front.validate();  // before anything starts
  latency_ = &registry_.histogram("realmt_request_seconds",
                                  "Latency of POST /v1/translate, from arrival to answer",
                                  {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30});
  sentences_ = &registry_.counter("realmt_sentences_total", "Sentences translated and answered");
  ws_messages_ = &registry_.counter("realmt_websocket_messages_total",
                                    "WebSocket messages (GET /translate) translated and answered");
  for (int code : {200, 400, 401, 413, 415, 429, 500, 503, 504})
    registry_.counter("realmt_mtapi_requests_total", "Requests to POST /translate by status",
                      "code", std::to_string(code));
  for (int code : {200, 400, 401, 405, 408, 411, 413, 415, 429, 500, 503, 504})  // listed at 0
    registry_.counter("realmt_requests_total", "Requests to /v1/translate by status", "code",
                      std::to_string(code));
  registry_.gauge("realmt_requests_in_progress", "Translation requests being handled",
                  [this] { return static_cast<double>(active_.load()); });
  scheduler_ = std::make_unique<BatchScheduler>(std::move(decode), config_.scheduler, &registry_);
  HttpHandlers handlers;
  handlers.quick = [this](const HttpRequest& req) { return route(req); };
  handlers.work = [this](const HttpRequest& req) {
    return req.path == kTranslatePath ? translate(req) : translate_mtapi(req);
  };
  handlers.message = [this](const HttpRequest&, const std::string& message) {
    return translate_message(message);
  };
  handlers.refuse = [this](int status, const std::string& reason, const HttpRequest& partial) {
    return refuse(status, reason, partial);
  };
  listener_ = std::make_unique<HttpListener>(std::move(front), std::move(handlers), &registry_);
}

HttpServer::~HttpServer() { listener_->stop(); }

int HttpServer::bind() { return listener_->bind(); }

void HttpServer::serve() { listener_->serve(); }

void HttpServer::begin_drain() {
  draining_ = true;
  scheduler_->drain();
}

bool HttpServer::shutdown(std::chrono::milliseconds timeout) {
  begin_drain();
  const auto until = Clock::now() + timeout;
  bool done = scheduler_->wait_idle(timeout);
  // Handlers wake once their request is decoded; give them the rest of the time to answer.
  while (active_.load() > 0 && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  done = done && active_.load() == 0;
  listener_->stop();  // answers already handed to the front are still written
  return done;
}

bool HttpServer::authorized(const HttpRequest& req) const {
  if (config_.api_key.empty()) return true;
  const std::string* h = req.header("authorization");
  return h && bearer_matches(*h, config_.api_key);
}

void HttpServer::count(int status, double seconds) {
  registry_
      .counter("realmt_requests_total", "Requests to /v1/translate by status", "code",
               std::to_string(status))
      .add(1);
  if (seconds > 0) latency_->observe(seconds);
}

HttpResponse HttpServer::refuse(int status, const std::string& reason, const HttpRequest& partial) {
  if (partial.path == kTranslatePath) count(status, 0.0);
  if (is_compat_path(partial.path) && partial.method == "POST") {
    count_mtapi(status);
    return json_answer(status, format_mtapi_error(status, reason));
  }
  return error_answer(status, reason);
}

std::optional<HttpResponse> HttpServer::route(const HttpRequest& req) {
  const bool get = req.method == "GET" || req.method == "HEAD";
  if (req.path == "/health") {
    if (!get) return method_not_allowed(req, "GET, HEAD");
    const bool drain = draining_.load();
    return json_answer(drain ? 503 : 200,
                       drain ? R"({"status":"draining"})" : R"({"status":"ok"})");
  }
  if (req.path == "/metrics") {
    if (!get) return method_not_allowed(req, "GET, HEAD");
    if (!authorized(req)) {
      HttpResponse r = error_answer(401, "missing or wrong bearer token");
      r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return r;
    }
    HttpResponse r = json_answer(200, registry_.render());
    r.content_type = "text/plain; version=0.0.4";
    return r;
  }
  if (req.path == "/" || req.path == "/index.html") {
    if (!get) return method_not_allowed(req, "GET, HEAD");
    HttpResponse r;
    r.status = 200;
    r.body = std::string(web_page_html());
    r.content_type = "text/html; charset=utf-8";
    r.headers.emplace_back("Content-Security-Policy", kWebPagePolicy);
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("Cache-Control", "no-cache");
    return r;
  }
  if (req.path == "/v1/info") {
    if (!get) return method_not_allowed(req, "GET, HEAD");
    ServerInfo info;
    info.language_pair = config_.language_pair;
    info.target_languages = config_.target_languages;
    info.beam_size = config_.search.beam_size;
    info.max_beam_size = config_.limits.max_beam_size;
    info.max_n_best = config_.limits.max_n_best;
    info.max_request_sentences = config_.limits.max_sentences;
    info.api_key_required = !config_.api_key.empty();
    return json_answer(200, format_info(info));
  }
  if (is_compat_path(req.path)) return route_compat(req);
  if (req.path != kTranslatePath)
    return error_answer(404, format("no route {} {}", req.method, req.path));
  std::optional<HttpResponse> refused;
  if (req.method != "POST") {
    refused = method_not_allowed(req, "POST");
  } else if (draining_) {
    refused = error_answer(503, "the server is shutting down; retry on another instance");
    refused->close = true;
  } else if (!authorized(req)) {
    refused = error_answer(401, "missing or wrong bearer token (Authorization: Bearer <key>)");
    refused->headers.emplace_back("WWW-Authenticate", "Bearer");
  } else {
    try {
      check_json_content_type(req.header("content-type"));
    } catch (const HttpError& e) {
      refused = error_answer(e.status(), e.what());
    }
  }
  if (refused) count(refused->status, seconds_since(req.received));
  return refused;  // nullopt: a worker translates
}

HttpResponse HttpServer::translate(const HttpRequest& req) {
  const auto t0 = req.received;
  ++active_;
  struct Leave {
    std::atomic<int>& n;
    ~Leave() { --n; }
  } leave{active_};
  HttpResponse res;
  try {
    if (draining_) {  // began while the request waited for a worker
      res.close = true;
      throw HttpError(503, "the server is shutting down; retry on another instance");
    }
    TranslateRequest request = parse_translate_request(req.body, config_.limits);
    add_language_tag(request);
    const search::SearchOptions options = request_search_options(request, config_.search);
    const int64_t timeout_ms = request.timeout_ms > 0
                                   ? std::min(request.timeout_ms, config_.default_timeout_ms)
                                   : config_.default_timeout_ms;
    const auto texts = decode_texts(request.text, options, t0, timeout_ms, "text");
    res.body = format_translations(texts, options.n_best);
    res.status = 200;
  } catch (const HttpError& e) {
    res.status = e.status();
    res.body = format_error(e.what());
  } catch (const std::exception& e) {
    res.status = 500;
    res.body = format_error(e.what());
  }
  res.content_type = kJson;
  count(res.status, seconds_since(t0));
  return res;
}

void HttpServer::add_language_tag(TranslateRequest& request) const {
  if (request.target_language.empty()) return;
  if (!codec_.language_tag)
    throw HttpError(400, "target_language: this server's vocabulary has no language tags");
  std::string tag;
  try {
    tag = codec_.language_tag(request.target_language);
  } catch (const std::exception& e) {
    throw HttpError(400, format("target_language: {}", e.what()));
  }
  for (std::string& t : request.text) t = data::with_language_tag(tag, t);
}

std::vector<std::vector<ScoredText>> HttpServer::decode_texts(
    std::span<const std::string> texts, const search::SearchOptions& options, Clock::time_point t0,
    int64_t timeout_ms, std::string_view what, size_t offset) {
  std::vector<std::vector<int32_t>> sources(texts.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    sources[i] = codec_.encode(texts[i]);
    if (static_cast<int64_t>(sources[i].size()) > config_.limits.max_sentence_tokens)
      throw HttpError(413,
                      format("{}[{}]: {} subwords, this server takes at most {} a sentence", what,
                             offset + i, sources[i].size(), config_.limits.max_sentence_tokens));
  }
  Ticket ticket =
      scheduler_->submit(std::move(sources), options, t0 + std::chrono::milliseconds(timeout_ms));
  RequestResult result = ticket.wait();
  if (result.status != 200) throw HttpError(result.status, result.error);
  std::vector<std::vector<ScoredText>> out(result.hypotheses.size());
  for (size_t i = 0; i < out.size(); ++i)
    for (const search::Hypothesis& h : result.hypotheses[i])
      out[i].push_back({codec_.decode(h.tokens), h.score});
  sentences_->add(static_cast<double>(out.size()));
  return out;
}

}  // namespace realmt::server
