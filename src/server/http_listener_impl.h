// The state of server/http_listener.h's front, shared by its two source files:
// http_listener.cc (HTTP) and http_listener_websocket.cc (upgraded connections). Not an API.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/http_listener.h"
#include "server/metrics.h"
#include "server/websocket_session.h"
#include "server/worker_pool.h"

namespace realmt::server {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace listener_detail {

constexpr size_t kReadChunk = 64 * 1024;           // one recv a readiness event (fairness)
constexpr int64_t kLingerMs = 2000;                // discarding after a closing answer ...
constexpr int64_t kLingerBytes = 4 * 1024 * 1024;  // ... at most this long and this much
constexpr int kSpareFiles = 64;                    // descriptors kept for everything else
constexpr uint64_t kListenId = 0, kWakeId = 1;     // epoll tags; connections count from 2
constexpr const char* kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr size_t kWsMaxPending = 16;      // complete WebSocket messages queued per connection
constexpr size_t kWsMaxUnsent = 1 << 20;  // a WebSocket stops reading while more waits unsent

}  // namespace listener_detail

struct HttpListener::Impl {
  enum class Phase { kReading, kHandling, kWriting, kLingering, kWebSocket };
  struct Connection {
    explicit Connection(const HttpLimits& limits) : parser(limits) {}
    int fd = -1;
    uint64_t id = 0;
    std::string peer;
    Phase phase = Phase::kReading;
    RequestParser parser;
    std::string in;  // read, not yet parsed (a pipelined request waits here)
    std::string out;
    size_t out_sent = 0;
    Clock::time_point deadline;
    uint32_t events = 0;  // the epoll interest set now
    bool keep_alive = true, head = false, close_after = false;
    int64_t discarded = 0;                           // while lingering
    std::unique_ptr<WebSocketSession> ws;            // after an upgrade (phase kWebSocket)
    HttpRequest handshake;                           // the request that upgraded it
    std::optional<Clock::time_point> message_since;  // first byte of a message still arriving
    Clock::time_point active_since;  // the last bytes from the client or reply to it
  };
  struct Done {
    uint64_t id;
    HttpResponse response;
    std::optional<WsReply> ws;  // the reply to a WebSocket message instead
  };

  Impl(ListenerOptions o, HttpHandlers h, Registry* metrics);
  ~Impl();
  void open_socket();
  void loop();
  void accept_all(Clock::time_point now);
  void refuse_at_accept(int fd, int status, const std::string& reason, const char* why);
  void on_event(Connection& c, uint32_t events, Clock::time_point now);
  void read_some(Connection& c, Clock::time_point now);
  void parse(Connection& c, Clock::time_point now);
  void dispatch(Connection& c, HttpRequest request, Clock::time_point now);
  void respond(Connection& c, const HttpResponse& r, Clock::time_point now);
  // Writes what it can of c.out; false when the connection was closed (c is gone).
  bool flush(Connection& c, Clock::time_point now);
  void linger(Connection& c, Clock::time_point now);
  void close(Connection& c);
  void watch(Connection& c, uint32_t events);
  void sweep(Clock::time_point now);
  void begin_stop(Clock::time_point now);
  void take_done(Clock::time_point now);
  HttpResponse refusal(int status, const std::string& reason, const HttpRequest& partial);
  // WebSocket (http_listener_websocket.cc).
  void upgrade(Connection& c, const HttpResponse& r, Clock::time_point now);
  // Reads c.in's frames, starts the next message, sets the deadline, writes what is due.
  void ws_pump(Connection& c, Clock::time_point now);
  void ws_handle(Connection& c, std::string message);
  void ws_done(Connection& c, const WsReply& reply, Clock::time_point now);
  void ws_timeout(Connection& c, Clock::time_point now);
  Clock::time_point ws_deadline(const Connection& c) const;  // idle, or a message arriving
  uint32_t ws_interest(const Connection& c) const;

  ListenerOptions opt;
  HttpHandlers handlers;
  int listen_fd = -1, epoll_fd = -1, wake_fd = -1;
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> conns;
  std::unordered_map<std::string, int> per_client;
  std::vector<uint64_t> ready;  // connections with a pipelined request to parse
  uint64_t next_id = 2;
  std::atomic<int> open{0};
  std::atomic<bool> stop_requested{false};
  bool stopping = false, listen_paused = false;
  Clock::time_point stop_deadline, resume_accept;
  milliseconds sweep_every{100};

  WorkerPool workers;
  std::mutex mutex;        // done
  std::vector<Done> done;  // answers from the workers, for the loop to write

  Counter *refused_total = nullptr, *refused_client = nullptr, *timeouts = nullptr;
};

}  // namespace realmt::server
