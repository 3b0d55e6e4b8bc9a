// The HTTP front of realmt-server (cpp-httplib): routes, authentication, limits, metrics, drain.
//
//   POST /v1/translate   JSON request (server/request.h) -> 200 {"translations": [...]}
//                        400 malformed / wrong types, 401 missing or wrong bearer token,
//                        413 body, sentence count or sentence length over the limits,
//                        429 queue full, 503 draining, 504 deadline passed, 500 decoding failed
//   GET  /health         200 {"status": "ok"}; 503 {"status": "draining"} while draining
//   GET  /metrics        Prometheus text: requests by code, sentences, batch sizes, queue depth,
//                        latency histogram (needs the bearer token when one is set)
//
// Every sentence of every request goes through one BatchScheduler; the handler threads encode
// and decode text, the scheduler's single thread runs the beam search.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "search/search_options.h"
#include "server/batch_scheduler.h"
#include "server/metrics.h"
#include "server/request.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace realmt::server {

struct HttpConfig {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8080;                 // 0: any free port (bind() says which)
  int threads = 128;               // handler threads (one per connection being served)
  std::string api_key;             // non-empty: "Authorization: Bearer <api_key>" required
  int64_t max_body_bytes = 1 << 20;
  int64_t default_timeout_ms = 30000;  // a request's deadline unless it asks for less
  RequestLimits limits;
  search::SearchOptions search;  // defaults; a request may set beam_size and n_best
  SchedulerOptions scheduler;
};

// Text <-> subword ids (the vocabulary; a fake in tests). Both may be called from many threads.
struct TextCodec {
  std::function<std::vector<int32_t>(const std::string&)> encode;
  std::function<std::string(const std::vector<int32_t>&)> decode;
};

class HttpServer {
 public:
  HttpServer(HttpConfig config, TextCodec codec, DecodeFn decode);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the listening socket; returns the port (the chosen one when config.port is 0).
  int bind();
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
  void translate(const httplib::Request& req, httplib::Response& res);
  bool authorized(const httplib::Request& req) const;
  void count(int status, double seconds);

  HttpConfig config_;
  TextCodec codec_;
  Registry registry_;  // before the scheduler: its gauges read the scheduler until it is gone
  std::unique_ptr<BatchScheduler> scheduler_;
  std::unique_ptr<httplib::Server> http_;
  std::atomic<bool> draining_{false};
  std::atomic<int> active_{0};  // translate handlers running
  int listen_socket_ = -1;
  Histogram* latency_ = nullptr;
  Counter* sentences_ = nullptr;
};

}  // namespace realmt::server
