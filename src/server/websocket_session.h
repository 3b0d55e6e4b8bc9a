// One WebSocket connection after its handshake, with no sockets (server/http_listener.h moves
// the bytes): frames in (server/websocket_frame.h), frames out, text messages handled one at a
// time in arrival order, pings answered at once, and the close handshake (RFC 6455 section 7).
//
// A close frame from the client is answered with a close frame carrying its code (1000 when it
// gave none), a broken frame with a close frame carrying the reader's code (1002, 1003, 1007,
// 1009); after the server's close frame nothing more is read or sent, and the connection ends
// once that frame is written. Complete messages wait in a queue of at most max_pending; while
// it is full the session reads nothing more (the client's own sends then block: back-pressure).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "server/websocket_frame.h"

namespace realmt::server {

class WebSocketSession {
 public:
  WebSocketSession(int64_t max_message_bytes, size_t max_pending)
      : reader_(max_message_bytes), max_pending_(max_pending) {}

  // Reads the complete frames at the front of `in` (erasing them), appending to `out` what
  // they call for (pongs, the close frame); stops when the queue is full or after a close.
  void read(std::string& in, std::string& out);
  // The next message to handle, unless one is being handled or the session is closed.
  std::optional<std::string> take();
  // Ends the handling of the message taken last with `text` as its reply (dropped if closed).
  void reply(std::string_view text, std::string& out);
  // Sends a close frame with `code` and `reason` unless one was sent; drops the queue.
  void close(int code, std::string_view reason, std::string& out);

  bool closed() const { return closed_; }  // the server's close frame is in `out`
  bool busy() const { return busy_; }      // a message is being handled
  bool full() const { return pending_.size() >= max_pending_; }
  // Part of a message has arrived (a fragment, or a frame not yet whole in `in`).
  bool partial(const std::string& in) const { return reader_.in_message() || !in.empty(); }

 private:
  FrameReader reader_;
  std::deque<std::string> pending_;
  size_t max_pending_;
  bool busy_ = false, closed_ = false;
};

}  // namespace realmt::server
