#include "server/http_server.h"

#include <httplib.h>

#include <sys/socket.h>

#include <thread>

#include "core/error.h"

namespace realmt::server {

namespace {

constexpr const char* kJson = "application/json";

void reply_error(httplib::Response& res, int status, const std::string& reason) {
  res.status = status;
  res.set_content(format_error(reason), kJson);
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

HttpServer::HttpServer(HttpConfig config, TextCodec codec, DecodeFn decode)
    : config_(std::move(config)), codec_(std::move(codec)) {
  REALMT_CHECK(config_.threads >= 1, "http-threads must be at least 1, got {}", config_.threads);
  REALMT_CHECK(config_.max_body_bytes >= 1, "max-body-bytes must be at least 1");
  REALMT_CHECK(config_.default_timeout_ms >= 1, "request-timeout-ms must be at least 1");
  REALMT_CHECK(config_.limits.max_sentences <= config_.scheduler.max_queue_sentences,
               "max-request-sentences ({}) must not exceed max-queue-sentences ({}): such "
               "requests could never be queued",
               config_.limits.max_sentences, config_.scheduler.max_queue_sentences);
  config_.search.validate(config_.search.weights.empty() ? 1 : config_.search.weights.size());
  latency_ = &registry_.histogram(
      "realmt_request_seconds", "Latency of POST /v1/translate, from arrival to answer",
      {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30});
  sentences_ = &registry_.counter("realmt_sentences_total", "Sentences translated and answered");
  for (int code : {200, 400, 401, 413, 429, 500, 503, 504})  // listed at 0 from the start
    registry_.counter("realmt_requests_total", "Requests to /v1/translate by status", "code",
                      std::to_string(code));
  registry_.gauge("realmt_requests_in_progress", "Translation requests being handled",
                  [this] { return static_cast<double>(active_.load()); });
  scheduler_ = std::make_unique<BatchScheduler>(std::move(decode), config_.scheduler, &registry_);

  http_ = std::make_unique<httplib::Server>();
  const int threads = config_.threads;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // Remember the listening socket (the only one httplib applies socket options to) so that
  // bind() can raise its backlog.
  http_->set_socket_options([this](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_socket_ = static_cast<int>(sock);
  });
  // Without TCP_NODELAY a response written in two parts (headers, body) waits for the client's
  // delayed ACK: about 40 ms on every request (Nagle's algorithm).
  http_->set_tcp_nodelay(true);
  http_->set_payload_max_length(static_cast<size_t>(config_.max_body_bytes));
  http_->set_keep_alive_max_count(1000);
  http_->set_keep_alive_timeout(2);
  http_->set_read_timeout(10);
  http_->set_write_timeout(10);

  http_->Post("/v1/translate",
              [this](const httplib::Request& req, httplib::Response& res) { translate(req, res); });
  http_->Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    const bool drain = draining_.load();
    res.status = drain ? 503 : 200;
    res.set_content(drain ? R"({"status":"draining"})" : R"({"status":"ok"})", kJson);
  });
  http_->Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req)) {
      res.set_header("WWW-Authenticate", "Bearer");
      return reply_error(res, 401, "missing or wrong bearer token");
    }
    res.set_content(registry_.render(), "text/plain; version=0.0.4");
  });
  // Errors httplib answers itself (404, 413 for a body over the limit, 400 for a bad request
  // line) get a JSON reason too; answers our handlers wrote are left alone.
  http_->set_error_handler(httplib::Server::HandlerWithResponse([this](
                               const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string reason = format("HTTP {}", res.status);
    if (res.status == 404) reason = format("no route {} {}", req.method, req.path);
    if (res.status == 413)
      reason = format("request body over the limit of {} bytes", config_.max_body_bytes);
    if (req.path == "/v1/translate") count(res.status, 0.0);
    res.set_content(format_error(reason), kJson);
    return httplib::Server::HandlerResponse::Handled;
  }));
  http_->set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        reply_error(res, 500, what);
      });
}

HttpServer::~HttpServer() {
  if (http_->is_running()) http_->stop();
}

int HttpServer::bind() {
  int port = config_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(config_.host);
    REALMT_CHECK(port > 0, "cannot bind {} (any port)", config_.host);
  } else {
    REALMT_CHECK(http_->bind_to_port(config_.host, port),
                 "cannot bind {}:{}; is another server using the port? (--port 0 picks a free one)",
                 config_.host, port);
  }
  // cpp-httplib 0.11 listens with a backlog of 5: 64 clients connecting at once overflow it
  // and some get "connection reset". listen() again on the bound socket only raises the
  // backlog (POSIX leaves it open; Linux updates it in place).
  REALMT_CHECK(listen_socket_ >= 0 && ::listen(listen_socket_, SOMAXCONN) == 0,
               "cannot raise the listen backlog of {}:{}", config_.host, port);
  return port;
}

void HttpServer::serve() { http_->listen_after_bind(); }

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
  http_->stop();
  return done;
}

bool HttpServer::authorized(const httplib::Request& req) const {
  if (config_.api_key.empty()) return true;
  return bearer_matches(req.get_header_value("Authorization"), config_.api_key);
}

void HttpServer::count(int status, double seconds) {
  registry_
      .counter("realmt_requests_total", "Requests to /v1/translate by status", "code",
               std::to_string(status))
      .add(1);
  if (seconds > 0) latency_->observe(seconds);
}

void HttpServer::translate(const httplib::Request& req, httplib::Response& res) {
  const auto t0 = Clock::now();
  ++active_;
  struct Leave {
    std::atomic<int>& n;
    ~Leave() { --n; }
  } leave{active_};
  try {
    if (draining_) {
      res.set_header("Connection", "close");
      throw HttpError(503, "the server is shutting down; retry on another instance");
    }
    if (!authorized(req)) {
      res.set_header("WWW-Authenticate", "Bearer");
      throw HttpError(401, "missing or wrong bearer token (Authorization: Bearer <key>)");
    }
    const TranslateRequest request = parse_translate_request(req.body, config_.limits);
    const search::SearchOptions options = request_search_options(request, config_.search);
    std::vector<std::vector<int32_t>> sources(request.text.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      sources[i] = codec_.encode(request.text[i]);
      if (static_cast<int64_t>(sources[i].size()) > config_.limits.max_sentence_tokens)
        throw HttpError(413, format("text[{}]: {} subwords, this server takes at most {} a sentence",
                                    i, sources[i].size(), config_.limits.max_sentence_tokens));
    }
    const int64_t timeout_ms = request.timeout_ms > 0
                                   ? std::min(request.timeout_ms, config_.default_timeout_ms)
                                   : config_.default_timeout_ms;
    Ticket ticket =
        scheduler_->submit(std::move(sources), options, t0 + std::chrono::milliseconds(timeout_ms));
    RequestResult result = ticket.wait();
    if (result.status != 200) throw HttpError(result.status, result.error);
    std::vector<std::vector<ScoredText>> texts(result.hypotheses.size());
    for (size_t i = 0; i < texts.size(); ++i)
      for (const search::Hypothesis& h : result.hypotheses[i])
        texts[i].push_back({codec_.decode(h.tokens), h.score});
    res.set_content(format_translations(texts, options.n_best), kJson);
    res.status = 200;
    sentences_->add(static_cast<double>(texts.size()));
  } catch (const HttpError& e) {
    reply_error(res, e.status(), e.what());
  } catch (const std::exception& e) {
    reply_error(res, 500, e.what());
  }
  count(res.status, seconds_since(t0));
}

}  // namespace realmt::server
