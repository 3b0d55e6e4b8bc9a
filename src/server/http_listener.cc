#include "server/http_listener.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/log.h"
#include "server/metrics.h"
#include "server/socket_util.h"
#include "server/worker_pool.h"
#include "server/http_listener_impl.h"

namespace realmt::server {

using namespace listener_detail;

void ListenerOptions::validate() const {
  REALMT_CHECK(threads >= 1, "http-threads must be at least 1, got {}", threads);
  REALMT_CHECK(idle_timeout_ms >= 1 && header_timeout_ms >= 1 && body_timeout_ms >= 1 &&
                   write_timeout_ms >= 1,
               "keep-alive-timeout-ms, header-timeout-ms, body-timeout-ms and write-timeout-ms "
               "must be at least 1");
  REALMT_CHECK(max_connections >= 1 && max_connections_per_client >= 1,
               "max-connections ({}) and max-connections-per-client ({}) must be at least 1",
               max_connections, max_connections_per_client);
  REALMT_CHECK(limits.max_body_bytes >= 1, "max-body-bytes must be at least 1");
  REALMT_CHECK(max_message_bytes >= 1 && websocket_idle_timeout_ms >= 1,
               "the WebSocket message limit ({}) and websocket-idle-timeout-ms ({}) must be at "
               "least 1",
               max_message_bytes, websocket_idle_timeout_ms);
  REALMT_CHECK(limits.max_header_bytes >= 256, "max-header-bytes must be at least 256, got {}",
               limits.max_header_bytes);
}


HttpListener::Impl::Impl(ListenerOptions o, HttpHandlers h, Registry* metrics)
    : opt(std::move(o)), handlers(std::move(h)) {
  opt.validate();
  const int64_t shortest = std::min(
      {opt.idle_timeout_ms, opt.header_timeout_ms, opt.body_timeout_ms, opt.write_timeout_ms});
  sweep_every = milliseconds(std::clamp<int64_t>(shortest / 8, 5, 100));
  if (metrics) {
    metrics->gauge("realmt_http_connections", "Open HTTP connections",
                   [this] { return static_cast<double>(open.load()); });
    const char* help = "Connections refused at accept by the connection caps";
    refused_total =
        &metrics->counter("realmt_http_connections_refused_total", help, "cap", "total");
    refused_client =
        &metrics->counter("realmt_http_connections_refused_total", help, "cap", "per_client");
    timeouts = &metrics->counter("realmt_http_timeouts_total",
                                 "Requests or answers cut off by a read or write deadline");
  }
}

HttpListener::Impl::~Impl() {
  workers.stop();  // serve() has stopped them, unless it never ran or still runs
  for (auto& [id, c] : conns) ::close(c->fd);
  for (int fd : {listen_fd, epoll_fd, wake_fd})
    if (fd >= 0) ::close(fd);
}

void HttpListener::Impl::open_socket() {
  REALMT_CHECK(listen_fd < 0, "bind() called twice");
  const int fit = fit_open_file_limit(opt.max_connections, kSpareFiles);
  if (fit < opt.max_connections) {
    log::warn("max-connections {} lowered to {} to fit the open-file limit (ulimit -n)",
              opt.max_connections, fit);
    opt.max_connections = fit;
  }
  listen_fd = open_listening_socket(opt.host, opt.port, &opt.port);
  epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  REALMT_CHECK(epoll_fd >= 0 && wake_fd >= 0, "epoll/eventfd: {}", std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenId;
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev);
  ev.data.u64 = kWakeId;
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &ev);
}

HttpResponse HttpListener::Impl::refusal(int status, const std::string& reason,
                                         const HttpRequest& partial) {
  try {
    HttpResponse r = handlers.refuse(status, reason, partial);
    r.close = true;
    return r;
  } catch (const std::exception&) {
    HttpResponse r;
    r.status = status;
    r.content_type = "text/plain";
    r.body = reason;
    r.close = true;
    return r;
  }
}

void HttpListener::Impl::loop() {
  epoll_event events[256];
  auto next_sweep = Clock::now() + sweep_every;
  while (true) {
    const auto wait = std::chrono::duration_cast<milliseconds>(next_sweep - Clock::now());
    const int timeout = ready.empty() ? static_cast<int>(std::max<int64_t>(0, wait.count())) : 0;
    const int n = epoll_wait(epoll_fd, events, 256, timeout);
    REALMT_CHECK(n >= 0 || errno == EINTR, "epoll_wait: {}", std::strerror(errno));
    const auto now = Clock::now();
    for (int i = 0; i < std::max(n, 0); ++i) {
      const uint64_t id = events[i].data.u64;
      if (id == kListenId) {
        accept_all(now);
      } else if (id == kWakeId) {
        uint64_t v;
        while (::read(wake_fd, &v, sizeof v) > 0) {
        }
        if (stop_requested.load() && !stopping) begin_stop(now);
        take_done(now);
      } else if (auto it = conns.find(id); it != conns.end()) {
        on_event(*it->second, events[i].events, now);
      }
    }
    // Pipelined requests: the next one of each connection, one a round, between rounds of
    // socket events (no recursion, no connection starves the others).
    std::vector<uint64_t> round;
    round.swap(ready);
    for (uint64_t id : round)
      if (auto it = conns.find(id); it != conns.end()) parse(*it->second, now);
    if (now >= next_sweep) {
      sweep(now);
      next_sweep = now + sweep_every;
    }
    if (stopping && (conns.empty() || now >= stop_deadline)) break;
  }
  while (!conns.empty()) close(*conns.begin()->second);
}

void HttpListener::Impl::accept_all(Clock::time_point now) {
  for (int i = 0; i < 256 && !stopping; ++i) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    const int fd =
        accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop listening for a moment rather than spin on the backlog.
        log::warn("accept: {}; pausing new connections for 100 ms", std::strerror(errno));
        epoll_event ev{};
        ev.data.u64 = kListenId;
        epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
        listen_paused = true;
        resume_accept = now + milliseconds(100);
      }
      return;
    }
    const int one = 1;
    // Without TCP_NODELAY an answer written in two parts waits for the client's delayed ACK.
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::string peer = peer_address(addr);
    if (static_cast<int>(conns.size()) >= opt.max_connections) {
      refuse_at_accept(fd, 503,
                       format("the server holds its maximum of {} connections; retry "
                              "later",
                              opt.max_connections),
                       "total");
      continue;
    }
    int& mine = per_client[peer];
    if (mine >= opt.max_connections_per_client) {
      refuse_at_accept(fd, 429,
                       format("client {} holds its maximum of {} connections", peer,
                              opt.max_connections_per_client),
                       "per_client");
      continue;
    }
    ++mine;
    auto c = std::make_unique<Connection>(opt.limits);
    c->fd = fd;
    c->id = next_id++;
    c->peer = std::move(peer);
    c->deadline = now + milliseconds(opt.idle_timeout_ms);
    Connection& ref = *c;
    conns.emplace(c->id, std::move(c));
    ++open;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = ref.id;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    ref.events = EPOLLIN;
  }
}

void HttpListener::Impl::refuse_at_accept(int fd, int status, const std::string& reason,
                                          const char* why) {
  if (refused_total && std::strcmp(why, "total") == 0) refused_total->add(1);
  if (refused_client && std::strcmp(why, "per_client") == 0) refused_client->add(1);
  // One try, without waiting: a request already sent is read and dropped first, so that the
  // close is a FIN after the answer, not a reset.
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  const HttpResponse r = refusal(status, reason, HttpRequest{});
  const std::string bytes = response_head(r, false) + r.body;
  (void)::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  ::close(fd);
}

void HttpListener::Impl::watch(Connection& c, uint32_t events) {
  if (events == c.events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = c.id;
  epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
  c.events = events;
}

void HttpListener::Impl::on_event(Connection& c, uint32_t events, Clock::time_point now) {
  if (events & (EPOLLERR | EPOLLHUP)) return close(c);
  if ((events & EPOLLOUT) && !c.out.empty() && !flush(c, now)) return;
  if ((events & EPOLLIN) &&
      (c.phase == Phase::kReading || c.phase == Phase::kLingering || c.phase == Phase::kWebSocket))
    read_some(c, now);
}

void HttpListener::Impl::read_some(Connection& c, Clock::time_point now) {
  char buf[kReadChunk];
  const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) return close(c);  // the client closed (mid-request too: nobody to answer) or reset
  if (c.phase == Phase::kLingering) {
    c.discarded += n;
    if (c.discarded > kLingerBytes) close(c);
    return;
  }
  c.in.append(buf, static_cast<size_t>(n));
  if (c.phase == Phase::kWebSocket) return ws_pump(c, now);
  parse(c, now);
}

void HttpListener::Impl::parse(Connection& c, Clock::time_point now) {
  if (c.phase != Phase::kReading || c.in.empty()) return;
  const bool started = c.parser.started(), head_done = c.parser.head_done();
  const size_t used = c.parser.feed(c.in);
  c.in.erase(0, used);
  if (!started && c.parser.started()) c.deadline = now + milliseconds(opt.header_timeout_ms);
  if (!head_done && c.parser.head_done() && !c.parser.failed()) {
    c.deadline = now + milliseconds(opt.body_timeout_ms);
    if (c.parser.request().expect_continue && !c.parser.done()) {
      c.out += kContinue;
      if (!flush(c, now)) return;
    }
  }
  if (c.parser.failed()) {
    c.keep_alive = false;
    c.head = c.parser.request().method == "HEAD";
    respond(c, refusal(c.parser.error_status(), c.parser.error_reason(), c.parser.request()), now);
  } else if (c.parser.done()) {
    dispatch(c, c.parser.take(), now);
  }
}

void HttpListener::Impl::dispatch(Connection& c, HttpRequest request, Clock::time_point now) {
  request.peer = c.peer;
  request.received = now;
  c.keep_alive = request.keep_alive;
  c.head = request.method == "HEAD";
  std::optional<HttpResponse> quick;
  try {
    quick = handlers.quick(request);
  } catch (const std::exception& e) {
    quick = refusal(500, e.what(), request);
  }
  if (quick && quick->upgrade) c.handshake = request;  // its messages' handler reads it
  if (quick) return respond(c, *quick, now);
  c.phase = Phase::kHandling;
  c.deadline = Clock::time_point::max();  // the handler's own deadline bounds it
  watch(c, c.out.empty() ? 0u : static_cast<uint32_t>(EPOLLOUT));
  workers.submit([this, id = c.id, req = std::move(request)] {
    HttpResponse r;
    try {
      r = handlers.work(req);
    } catch (const std::exception& e) {
      r = refusal(500, e.what(), req);
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      done.push_back({id, std::move(r), std::nullopt});
    }
    const uint64_t one = 1;
    (void)!::write(wake_fd, &one, sizeof one);  // wakes the loop to write the answer
  });
}

void HttpListener::Impl::respond(Connection& c, const HttpResponse& r, Clock::time_point now) {
  if (r.upgrade && r.status == 101 && !stopping) return upgrade(c, r, now);
  c.close_after = r.close || !c.keep_alive || stopping;
  c.out += response_head(r, !c.close_after);
  if (!c.head) c.out += r.body;
  c.phase = Phase::kWriting;
  c.deadline = now + milliseconds(opt.write_timeout_ms);
  (void)flush(c, now);
}

bool HttpListener::Impl::flush(Connection& c, Clock::time_point now) {
  while (c.out_sent < c.out.size()) {
    const ssize_t n =
        ::send(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const uint32_t in = c.phase == Phase::kReading     ? static_cast<uint32_t>(EPOLLIN)
                          : c.phase == Phase::kWebSocket ? ws_interest(c)
                                                         : 0u;
      watch(c, in | EPOLLOUT);
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(c);
      return false;
    }
    c.out_sent += static_cast<size_t>(n);
  }
  c.out.clear();
  c.out_sent = 0;
  if (c.phase == Phase::kReading) {
    watch(c, EPOLLIN);  // a 100 Continue went out; the body comes next
  } else if (c.phase == Phase::kWebSocket) {
    if (c.ws->closed())
      linger(c, now);  // our close frame went out: the client closes next
    else
      watch(c, ws_interest(c));
  } else if (c.phase != Phase::kWriting) {
    watch(c, 0);
  } else if (c.close_after || stopping) {
    linger(c, now);
  } else {
    c.phase = Phase::kReading;
    c.deadline = now + milliseconds(opt.idle_timeout_ms);
    watch(c, EPOLLIN);
    if (!c.in.empty()) ready.push_back(c.id);
  }
  return true;
}

void HttpListener::Impl::linger(Connection& c, Clock::time_point now) {
  // Closing with unread input makes the kernel send a reset, which may destroy the answer
  // before the client reads it: shut our side, then read and drop for a while (bounded).
  ::shutdown(c.fd, SHUT_WR);
  c.phase = Phase::kLingering;
  c.in.clear();
  c.in.shrink_to_fit();
  c.deadline = now + milliseconds(std::min(kLingerMs, opt.write_timeout_ms));
  watch(c, EPOLLIN);
}

void HttpListener::Impl::close(Connection& c) {
  ::close(c.fd);  // also leaves the epoll set
  auto it = per_client.find(c.peer);
  if (it != per_client.end() && --it->second <= 0) per_client.erase(it);
  --open;
  conns.erase(c.id);  // destroys c
}

void HttpListener::Impl::sweep(Clock::time_point now) {
  if (listen_paused && now >= resume_accept && !stopping) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenId;
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
    listen_paused = false;
  }
  std::vector<Connection*> late;
  for (auto& [id, c] : conns)
    if (now >= c->deadline) late.push_back(c.get());
  for (Connection* c : late) {
    const bool idle = c->phase == Phase::kReading && !c->parser.started();
    if (timeouts && !idle && c->phase != Phase::kLingering) timeouts->add(1);
    if (c->phase == Phase::kReading && c->parser.started() && c->out.empty()) {
      // Part of a request came, not all of it in time: say so, then close.
      const bool head = c->parser.head_done();
      c->keep_alive = false;
      respond(*c,
              refusal(408,
                      format("the request {} did not arrive within {} ms",
                             head ? "body" : "line and header fields",
                             head ? opt.body_timeout_ms : opt.header_timeout_ms),
                      c->parser.request()),
              now);
    } else if (c->phase == Phase::kWebSocket && c->out.empty() && !c->ws->closed()) {
      ws_timeout(*c, now);
    } else {
      close(*c);  // waiting for a request (idle), or the client does not take its answer
    }
  }
}

void HttpListener::Impl::begin_stop(Clock::time_point now) {
  stopping = true;
  stop_deadline = now + milliseconds(opt.write_timeout_ms);
  epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
  ::close(listen_fd);
  listen_fd = -1;
  std::vector<Connection*> waiting;  // nothing of theirs is being handled: close them now
  std::vector<Connection*> sockets;  // WebSockets: the idle ones get a close frame now
  for (auto& [id, c] : conns) {
    if (c->phase == Phase::kReading) waiting.push_back(c.get());
    if (c->phase == Phase::kWebSocket) sockets.push_back(c.get());
  }
  for (Connection* c : waiting) close(*c);
  for (Connection* c : sockets) ws_pump(*c, now);
}

void HttpListener::Impl::take_done(Clock::time_point now) {
  std::vector<Done> mine;
  {
    std::lock_guard<std::mutex> lock(mutex);
    mine.swap(done);
  }
  for (Done& d : mine) {
    auto it = conns.find(d.id);
    if (it != conns.end() && d.ws && it->second->phase == Phase::kWebSocket) {
      ws_done(*it->second, *d.ws, now);
      continue;
    }
    if (it == conns.end() || it->second->phase != Phase::kHandling) continue;  // client gone
    respond(*it->second, d.response, now);
  }
}

HttpListener::HttpListener(ListenerOptions options, HttpHandlers handlers, Registry* metrics)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handlers), metrics)) {}

HttpListener::~HttpListener() = default;

int HttpListener::bind() {
  impl_->open_socket();
  return impl_->opt.port;
}

void HttpListener::serve() {
  Impl& m = *impl_;
  REALMT_CHECK(m.epoll_fd >= 0, "serve() before bind()");
  m.workers.start(m.opt.threads);
  struct Join {  // also when the loop throws; requests not started have nobody to answer
    WorkerPool& pool;
    ~Join() { pool.stop(); }
  } join{m.workers};
  m.loop();
}

void HttpListener::stop() {
  impl_->stop_requested = true;
  const uint64_t one = 1;
  if (impl_->wake_fd >= 0) (void)!::write(impl_->wake_fd, &one, sizeof one);
}

int HttpListener::open_connections() const { return impl_->open.load(); }

}  // namespace realmt::server
