#include "server/websocket_session.h"

namespace realmt::server {

void WebSocketSession::read(std::string& in, std::string& out) {
  size_t pos = 0;
  while (!closed_ && !full()) {
    size_t used = 0;
    std::optional<WsEvent> e = reader_.next(std::string_view(in).substr(pos), &used);
    pos += used;
    if (!e) break;
    switch (e->kind) {
      case WsEvent::Kind::kText: pending_.push_back(std::move(e->payload)); break;
      case WsEvent::Kind::kPing: out += encode_frame(WsOpcode::kPong, e->payload); break;
      case WsEvent::Kind::kPong:  // an answer to nothing we sent, or a heartbeat: ignored
        break;
      case WsEvent::Kind::kClose:  // echo the code (RFC 6455 section 5.5.1); 1005 is never sent
        close(e->code == WsClose::kNoStatus ? WsClose::kNormal : e->code, "", out);
        break;
      case WsEvent::Kind::kError: close(e->code, e->payload, out); break;
    }
  }
  in.erase(0, closed_ ? in.size() : pos);
}

std::optional<std::string> WebSocketSession::take() {
  if (busy_ || closed_ || pending_.empty()) return std::nullopt;
  busy_ = true;
  std::string m = std::move(pending_.front());
  pending_.pop_front();
  return m;
}

void WebSocketSession::reply(std::string_view text, std::string& out) {
  busy_ = false;
  if (!closed_) out += encode_frame(WsOpcode::kText, text);
}

void WebSocketSession::close(int code, std::string_view reason, std::string& out) {
  if (closed_) return;
  closed_ = true;
  busy_ = false;  // a reply still coming is dropped
  pending_.clear();
  out += encode_close(code, reason);
}

}  // namespace realmt::server
