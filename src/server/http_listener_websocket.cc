// The WebSocket side of the HTTP front (server/http_listener.h): connections that a 101 answer
// upgraded. The protocol lives in server/websocket_session.h; this file moves its bytes and
// hands its messages to the workers.
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>

#include "core/error.h"
#include "server/http_listener_impl.h"

namespace realmt::server {

using namespace listener_detail;

void HttpListener::Impl::upgrade(Connection& c, const HttpResponse& r, Clock::time_point now) {
  c.out += response_head(r, true);
  c.ws = std::make_unique<WebSocketSession>(opt.max_message_bytes, kWsMaxPending);
  c.phase = Phase::kWebSocket;
  c.message_since.reset();
  ws_pump(c, now);  // frames sent right behind the handshake may be in c.in already
}

uint32_t HttpListener::Impl::ws_interest(const Connection& c) const {
  const bool reading = !c.ws->closed() && !c.ws->full() && c.out.size() - c.out_sent < kWsMaxUnsent;
  return reading ? static_cast<uint32_t>(EPOLLIN) : 0u;
}

Clock::time_point HttpListener::Impl::ws_deadline(const Connection& c) const {
  if (c.ws->busy()) return Clock::time_point::max();  // the handler's own deadline bounds it
  if (c.message_since) return *c.message_since + milliseconds(opt.body_timeout_ms);
  return c.active_since + milliseconds(opt.websocket_idle_timeout_ms);
}

void HttpListener::Impl::ws_pump(Connection& c, Clock::time_point now) {
  WebSocketSession& s = *c.ws;
  c.active_since = now;
  s.read(c.in, c.out);
  if (stopping && !s.busy()) s.close(WsClose::kGoingAway, "the server is shutting down", c.out);
  if (std::optional<std::string> m = s.take()) ws_handle(c, std::move(*m));
  if (!s.partial(c.in)) {
    c.message_since.reset();
  } else if (!c.message_since) {
    c.message_since = now;
  }
  c.deadline = ws_deadline(c);
  // Until what is due is written: a client that does not read its replies is cut off.
  if (!c.out.empty()) c.deadline = std::min(c.deadline, now + milliseconds(opt.write_timeout_ms));
  (void)flush(c, now);
}

void HttpListener::Impl::ws_handle(Connection& c, std::string message) {
  workers.submit([this, id = c.id, req = c.handshake, m = std::move(message)] {
    WsReply r;
    try {
      r = handlers.message(req, m);
    } catch (const std::exception& e) {
      r.close_code = WsClose::kInternalError;
      r.close_reason = e.what();
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      done.push_back({id, HttpResponse{}, std::move(r)});
    }
    const uint64_t one = 1;
    (void)!::write(wake_fd, &one, sizeof one);  // wakes the loop to write the reply
  });
}

void HttpListener::Impl::ws_done(Connection& c, const WsReply& reply, Clock::time_point now) {
  if (reply.close_code != 0) {
    c.ws->close(reply.close_code, reply.close_reason, c.out);
  } else {
    c.ws->reply(reply.text, c.out);
  }
  ws_pump(c, now);  // the next queued message, if any
}

void HttpListener::Impl::ws_timeout(Connection& c, Clock::time_point now) {
  const Clock::time_point due = ws_deadline(c);
  if (now < due) {  // an earlier write deadline that the client met
    c.deadline = due;
    return;
  }
  if (c.message_since) {
    if (timeouts) timeouts->add(1);
    c.ws->close(WsClose::kPolicy,
                format("the message did not arrive within {} ms", opt.body_timeout_ms), c.out);
  } else {
    c.ws->close(WsClose::kNormal, format("idle for {} ms", opt.websocket_idle_timeout_ms), c.out);
  }
  c.deadline = now + milliseconds(opt.write_timeout_ms);
  (void)flush(c, now);
}

}  // namespace realmt::server
